import Foundation
import PushgateAPNs
import PushgateCore
import PushgateDumpFormat
import PushgateFCM
import PushgateInstalledServices
import Testing

/// The dump's lines: what `pushgate export` writes and `pushgate import` accepts,
/// checked against `store/LAYOUT.md`.
@Suite("Dump records")
struct DumpRecordTests {
    static let server = SHA256Hex.digest(of: "secret")
    static let cwd = "/srv/agents/build"
    static let agent = SHA256Hex.digest(of: cwd)
    static let stamp = "2026-11-24T10:00:00.000Z"
    static let device = "servers/\(server)/agents/\(agent)/devices/phone-1"
    static let deviceFields =
        #""platform":"ios","apnsToken":"\#(String(repeating: "ab", count: 32))","createdAt":"\#(stamp)","updatedAt":"\#(stamp)""#

    func record(_ line: String) throws(DumpError) -> DumpRecord {
        try DumpRecord(line: Array(line.utf8), formats: .installed)
    }

    @Test("a document's line leads with its path and reads back as the same record")
    func documentLine() throws {
        let line = #"{"path":"\#(Self.device)","fields":{\#(Self.deviceFields)}}"#
        let parsed = try record(line)
        guard case .document(let document) = parsed else {
            Issue.record("not a document")
            return
        }
        #expect(document.fields["platform"] == "ios")
        #expect(parsed.serverKey == Self.server)
        let written = String(decoding: try parsed.line(), as: UTF8.self)
        #expect(written.hasPrefix(#"{"path":"\#(Self.device)","fields":{"#))
        #expect(try record(written) == parsed)
    }

    @Test("the header names the format, when, and the namespace exported")
    func header() throws {
        let exportedAt = Date(timeIntervalSince1970: 1_795_323_872.5)
        let header = DumpRecord.header(exportedAt: exportedAt, namespace: Self.server)
        let line = String(decoding: try header.line(), as: UTF8.self)
        #expect(line == #"{"pushgate_dump":1,"exported_at":"2026-11-22T05:04:32.500Z","namespace":"\#(Self.server)"}"#)
        #expect(try record(line) == header)
        #expect(throws: DumpError.self) { try record(#"{"pushgate_dump":2,"exported_at":"\#(Self.stamp)"}"#) }
    }

    @Test(
        "a header's time finer than a millisecond (the fuzzer's find) is read to the millisecond, and reads back the same"
    )
    func headerFinerThanMilliseconds() throws {
        let parsed = try record(#"{"pushgate_dump":1,"exported_at":"2026-11-24T19:23:27.7013Z"}"#)
        let written = try parsed.line()
        #expect(String(decoding: written, as: UTF8.self).contains(#""exported_at":"2026-11-24T19:23:27.701Z""#))
        #expect(try DumpRecord(line: written, formats: .installed) == parsed)
    }

    @Test("an outbox row reads back as written; an unknown or missing column is refused")
    func outboxRows() throws {
        let delivery = DumpedDelivery(
            notificationID: "n1", installationID: "phone-1", token: .fcm("tok"), pushID: "p1", route: nil,
            attempts: 2, enqueuedAt: 1_795_323_872_000, nextAttemptAt: 1_795_323_882_000, lastReason: "Unavailable")
        let line = String(decoding: try DumpRecord.delivery(delivery).line(), as: UTF8.self)
        #expect(try record(line) == .delivery(delivery))
        #expect(throws: DumpError.self) {
            try record(line.replacingOccurrences(of: #""attempts":2"#, with: #""attempts":2,"lease_owner":"w""#))
        }
        #expect(throws: DumpError.self) { try record(line.replacingOccurrences(of: #""push_id":"p1","#, with: "")) }
        // A route's environment is its token's service's word: APNs's for an APNs
        // token, none for FCM's.
        let hex = String(repeating: "ab", count: 32)
        let sandbox = DumpedDelivery(
            notificationID: "n1", installationID: "phone-1", token: .apns(hex), pushID: "p1", route: "sandbox! app",
            attempts: 0, enqueuedAt: 1_795_323_872_000, nextAttemptAt: 1_795_323_872_000, lastReason: nil)
        let apnsLine = String(decoding: try DumpRecord.delivery(sandbox).line(), as: UTF8.self)
        #expect(try record(apnsLine) == .delivery(sandbox))
        #expect {
            try record(apnsLine.replacingOccurrences(of: "sandbox!", with: "staging!"))
        } throws: { error in
            "\(error)".contains("names an environment apns does not have")
        }
        #expect(throws: DumpError.self) {
            try record(line.replacingOccurrences(of: #""push_id""#, with: #""route":"sandbox app","push_id""#))
        }
    }

    @Test(
        "lines the layout refuses, each with the reason",
        arguments: [
            ("not json", "not a JSON value"),
            (#"[1]"#, "a record must be an object"),
            (#"{"widget":{}}"#, "unknown record kind 'widget'"),
            (#"{"path":"users/x","fields":{}}"#, "is not under servers/"),
            (#"{"path":"servers/ABC","fields":{"createdAt":"\#(stamp)"}}"#, "is not 64 lower-case hex digits"),
            (#"{"path":"servers/\#(server)","fields":{"createdAt":"yesterday"}}"#, "must be an RFC 3339 timestamp"),
            (#"{"path":"servers/\#(server)","fields":{}}"#, "a server must have 'createdAt'"),
            (#"{"path":"servers/\#(server)","fields":{"createdAt":"\#(stamp)","owner":"me"}}"#, "has no field 'owner'"),
            (
                #"{"path":"servers/\#(server)/agents/\#(agent)","fields":{"cwd":"/elsewhere","createdAt":"\#(stamp)","updatedAt":"\#(stamp)"}}"#,
                "not the SHA-256 of its cwd"
            ),
            (
                #"{"path":"\#(device)","fields":{"platform":"ios","createdAt":"\#(stamp)","updatedAt":"\#(stamp)"}}"#,
                "must have 'apnsToken', 'fcmToken' or 'webpushToken'"
            ),
            (
                #"{"path":"\#(device)","fields":{\#(deviceFields.replacingOccurrences(of: "ab", with: "AB"))}}"#,
                "'apnsToken' must be 64 to 200 lower-case hex digits"
            ),
            (
                #"{"path":"\#(device)","fields":{\#(deviceFields.replacingOccurrences(of: "\"ios\"", with: "\"windows\""))}}"#,
                "'platform' must be"
            ),
            (#"{"path":"servers/\#(server)/agents/\#(agent)/pets/x","fields":{}}"#, "no document of the layout"),
        ])
    func refused(line: String, reason: String) {
        #expect {
            try record(line)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    /// An agent document with `fields` (its cwd given, or `cwd` hashed into its path).
    static func agentLine(cwd: String = cwd, _ fields: String) -> String {
        let key = SHA256Hex.digest(of: cwd)
        let cwdJSON = String(decoding: (try? JSONValue.string(cwd).encodedBytes()) ?? [], as: UTF8.self)
        return #"{"path":"servers/\#(server)/agents/\#(key)","fields":{"cwd":\#(cwdJSON),\#(fields)}}"#
    }

    static let agentTimes = #""createdAt":"\#(stamp)","updatedAt":"\#(stamp)""#

    @Test(
        "a record meets the rules a request meets: lengths, characters, times ahead of the clock, keys once",
        arguments: [
            (
                agentLine(cwd: String(repeating: "d", count: 1025), agentTimes),
                "an agent's 'cwd' is 1025 bytes; at most 1024"
            ),
            (agentLine(cwd: "/a\u{0}b", agentTimes), "an agent's 'cwd' must not contain NUL characters"),
            (agentLine(cwd: "/a\u{202E}b", agentTimes), "an agent's 'cwd' must not contain bidirectional controls"),
            (
                agentLine(#""agentDisplayName":"\#(String(repeating: "n", count: 201))",\#(agentTimes)"#),
                "an agent's 'agentDisplayName' must be a string of 1 to 200 characters"
            ),
            (
                agentLine(#""agentDisplayName":"a\u0085b",\#(agentTimes)"#),
                "an agent's 'agentDisplayName' must not contain control characters"
            ),
            (
                agentLine(#""createdAt":"\#(stamp)","updatedAt":"9999-12-31T00:00:00Z""#),
                "an agent's 'updatedAt' is more than 5 minutes ahead of this clock"
            ),
            (
                #"{"path":"\#(device)","fields":{\#(deviceFields),"appVersion":"\#(String(repeating: "1", count: 101))"}}"#,
                "a device's 'appVersion' must be a string of 0 to 100 characters"
            ),
            (
                #"{"path":"\#(device)","fields":{\#(deviceFields),"platform":"ios"}}"#,
                "the key 'platform' appears twice in one object"
            ),
            (
                #"{"delivery":{"notification_id":"n1","installation_id":"i","token_kind":"fcm","token":"t","push_id":"p","state":"pending","attempts":4294967296,"enqueued_at":1,"next_attempt_at":1}}"#,
                "'attempts' must be a whole number from 0 to 100"
            ),
            (
                #"{"delivery":{"notification_id":"n1","installation_id":"i","token_kind":"fcm","token":"t","push_id":"p","state":"pending","attempts":1,"enqueued_at":1,"next_attempt_at":253402300800000}}"#,
                "'next_attempt_at' must be a whole number from 0 to 253402300799999"
            ),
        ])
    func apiRules(line: String, reason: String) {
        #expect {
            try record(line)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test("a time something happened may be as far ahead of the clock as a request's, not further")
    func timesAhead() throws {
        let now = Date()
        let soon = RFC3339.format(now.addingTimeInterval(60))
        let late = RFC3339.format(now.addingTimeInterval(3_600))
        #expect(throws: Never.self) {
            try DumpRecord(
                line: Array(Self.agentLine(#""createdAt":"\#(soon)","updatedAt":"\#(soon)""#).utf8),
                formats: .installed, now: now)
        }
        #expect(throws: DumpError.self) {
            try DumpRecord(
                line: Array(Self.agentLine(#""createdAt":"\#(late)","updatedAt":"\#(soon)""#).utf8),
                formats: .installed, now: now)
        }
    }

    @Test("an event decided or answered on a phone reads back with its proof; a decision of another word is refused")
    func decidedEvent() throws {
        let path = "servers/\(Self.server)/events/\(SHA256Hex.digest(of: "ask-7"))"
        let signature = String(repeating: "A", count: 86)
        let key = "BL18c7iLLptM7aYgIrLai-Exk6W1btwm5994QuJM0LXrBgWtp72oOsaiuA1-MUBA-kf_Frg7rIXO2wFEUbt85xo"
        func line(decision: String) -> String {
            #"{"path":"\#(path)","fields":{"eventId":"ask-7","agentKey":"\#(Self.agent)","type":"question_asked","notificationId":"n-1","reminderNotificationIds":[],"createdAt":"\#(Self.stamp)","answerable":true,"answerableBy":["phone-1","tablet"],"decision":"\#(decision)","decidedBy":"phone-1","decidedAt":"\#(Self.stamp)","decisionMessage":"Use the staging one.\nNot prod.","decisionSignedAt":1795000000,"decisionSignature":"\#(signature)","decisionKeyUsed":"\#(key)","unreadAnswerOf":"\#(Self.agent)","resolvedAt":"\#(Self.stamp)","resolution":"answered"}}"#
        }
        let parsed = try record(line(decision: "answer"))
        #expect(try record(String(decoding: try parsed.line(), as: UTF8.self)) == parsed)
        #expect(throws: DumpError.self) { try record(line(decision: "maybe")) }
    }

    @Test(
        "a pairing reads back with its completions; a completion without its key, one twice, an id not 32 hex digits are refused"
    )
    func pairing() throws {
        let id = "0123456789abcdef0123456789abcdef"
        let key = "BL18c7iLLptM7aYgIrLai-Exk6W1btwm5994QuJM0LXrBgWtp72oOsaiuA1-MUBA-kf_Frg7rIXO2wFEUbt85xo"
        let completion =
            #"{"installation_id":"phone-1","device_name":"Ana's iPhone","decision_key":"\#(key)","signed_at":1795000000,"signature":"\#(String(repeating: "A", count: 86))"}"#
        func line(_ completions: String, id pairingID: String = id) -> String {
            #"{"path":"servers/\#(Self.server)/pairings/\#(pairingID)","fields":{"createdAt":"\#(Self.stamp)","expiresAt":"\#(Self.stamp)","completions":[\#(completions)]}}"#
        }
        let parsed = try record(line(completion))
        #expect(try record(String(decoding: try parsed.line(), as: UTF8.self)) == parsed)
        #expect(try record(line("")) == record(String(decoding: try record(line("")).line(), as: UTF8.self)))
        let keyless = completion.replacingOccurrences(of: #""decision_key":"\#(key)","#, with: "")
        for bad in [line(keyless), line(completion + "," + completion), line(completion, id: "ABC")] {
            #expect(throws: DumpError.self, "\(bad.prefix(120))") { try record(bad) }
        }
    }
}
