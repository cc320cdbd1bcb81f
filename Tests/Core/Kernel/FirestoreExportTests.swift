import Foundation
import PushgateCore
import PushgateDumpFormat
import PushgateInstalledServices
import Testing

/// The JSON `node-firestore-import-export` writes, read into Pushgate's layout.
@Suite("Firestore export")
struct FirestoreExportTests {
    static let server = SHA256Hex.digest(of: "secret")
    static let cwd = "/srv/agents/build"
    static let agent = SHA256Hex.digest(of: cwd)

    static func timestamp(_ seconds: Int, _ nanoseconds: Int) -> String {
        #"{"__datatype__":"timestamp","value":{"_seconds":\#(seconds),"_nanoseconds":\#(nanoseconds)}}"#
    }

    static let export = """
        {"__collections__":{
          "servers":{
            "\(server)":{
              "lastSeenAt":\(timestamp(1_700_000_000, 123_456_789)),
              "serverDisplayName":"build box",
              "__collections__":{"agents":{
                "\(agent)":{"cwd":"\(cwd)","agentDisplayName":"build","updatedAt":\(timestamp(1_700_000_100, 0)),
                  "__collections__":{"devices":{
                    "phone-1":{"fcmToken":"fcm-1","platform":"android","updatedAt":\(timestamp(1_700_000_200, 999_999_999))},
                    "phone-2":{"fcmToken":"fcm-2","updatedAt":\(timestamp(1_700_000_300, 0))}
                  }}},
                "\(SHA256Hex.digest(of: "/other"))":{"cwd":"/not/this","updatedAt":\(timestamp(1_700_000_100, 0)),
                  "__collections__":{"devices":{
                    "phone-3":{"fcmToken":"fcm-3","updatedAt":\(timestamp(1_700_000_300, 0))}
                  }}}
              }}
            }
          },
          "users":{"u1":{"name":"x"}}
        }}
        """

    @Test("documents come parents first, timestamps as RFC 3339 with milliseconds, the gaps filled")
    func reads() throws {
        let parsed = try FirestoreExport(json: try JSONValue.parse(Array(Self.export.utf8)), formats: .installed)
        let documents = parsed.documents.compactMap { try? $0.document.get() }
        let paths = documents.map(\.path.rawValue)
        let agentPath = "servers/\(Self.server)/agents/\(Self.agent)"
        #expect(
            paths == [
                "servers/\(Self.server)", agentPath, "\(agentPath)/devices/phone-1", "\(agentPath)/devices/phone-2",
            ])
        #expect(
            documents[0].fields == ["createdAt": "2023-11-14T22:13:20.123Z", "lastSeenAt": "2023-11-14T22:13:20.123Z"])
        #expect(documents[1].fields["createdAt"] == "2023-11-14T22:15:00.000Z")
        #expect(documents[2].fields["updatedAt"] == "2023-11-14T22:16:40.999Z")
        #expect(documents[3].fields["platform"] == "ios", "a device without a platform registered as the app does")
        #expect(parsed.droppedFields == ["serverDisplayName": 1])
        #expect(parsed.otherCollections == ["users"])
    }

    @Test("an agent whose key is not its cwd's SHA-256 is refused, and its devices with it")
    func refusesAgentKey() throws {
        let parsed = try FirestoreExport(json: try JSONValue.parse(Array(Self.export.utf8)), formats: .installed)
        let refused = parsed.documents.compactMap { entry -> String? in
            guard case .failure(let error) = entry.document else { return nil }
            return "\(entry.location.suffix(20)): \(error)"
        }
        #expect(refused.count == 2)
        #expect(refused[0].contains("not the SHA-256 of its cwd"))
        #expect(refused[1].contains("devices/phone-3") && refused[1].contains("which was refused"))
    }

    @Test("a timestamp without its seconds is named")
    func badTimestamp() throws {
        let json = #"{"\#(Self.server)":{"lastSeenAt":{"__datatype__":"timestamp","value":{}}}}"#
        let parsed = try FirestoreExport(json: try JSONValue.parse(Array(json.utf8)), formats: .installed)
        guard case .failure(let error) = parsed.documents.first?.document else {
            Issue.record("accepted")
            return
        }
        #expect("\(error)".contains("'lastSeenAt': a timestamp needs"))
    }
}
