import Foundation
import PushgateClient
import PushgateCore
import PushgateSealing
import PushgateTesting
import Testing

/// `PushgateClient` as an app uses it, against a gateway process delivering through
/// the APNs emulator: chats opened, a token changed, the gateway away and back.
@Suite("End to end: the Swift client package")
struct ClientEndToEndTests {
    let secret = PushSecret.generate().value
    let tokenA = String(repeating: "a1", count: 32)
    let tokenB = String(repeating: "b2", count: 32)

    func manager(_ baseURL: String, store: any SecureStore, decides: Bool = false, deviceName: String? = nil) throws
        -> SubscriptionManager
    {
        let gateway = PushgateGateway(
            baseURL: try #require(URL(string: baseURL)), retry: RetryPolicy(deadline: .seconds(5)))
        return SubscriptionManager(
            gateway: gateway, store: store,
            options: .init(
                platform: .ios, bundleID: "com.example.app", decides: decides, deviceName: deviceName,
                retryBase: .milliseconds(200), retryCap: .seconds(1)))
    }

    /// The first push the emulator got for `token`: its payload, and as the app reads it.
    func firstPush(at emulator: RunningEmulator, to token: String) async throws -> (
        [String: JSONValue], PushgateNotification
    ) {
        var payload: [String: JSONValue]?
        try await waitUntil("the push", within: .seconds(20), every: .milliseconds(100)) {
            payload = try await emulator.entries().first { $0["device_token"]?.stringValue == token }?["payload"]?
                .objectValue
            return payload != nil
        }
        let pushed = try #require(payload)
        let userInfo = try #require(
            try JSONSerialization.jsonObject(with: JSONValue.object(pushed).encodedData()) as? [AnyHashable: Any])
        return (pushed, try #require(PushgateNotification(userInfo: userInfo)))
    }

    /// `pushgate trigger` for `cwd`, as the agent side calls it.
    func trigger(_ gateway: RunningGateway, cwd: String) async throws -> [String: JSONValue] {
        let result = try await BuiltExecutable.run(
            ["trigger", "--cwd", cwd, "--message", "Reply for \(cwd)"],
            environment: ["CODEAGENTS_PUSH_SECRET": secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        return try #require(try JSONValue.parse(Array(result.stdout.utf8)).objectValue)
    }

    @Test(
        "chats opened register once each; the agent's trigger reaches the phone and the push leads back to its chat; a new token is registered for every chat"
    )
    func registerTriggerReplay() async throws {
        let scratch = try TemporaryDirectory(name: "e2e-client")
        defer { scratch.remove() }
        let emulator = try await RunningEmulator(directory: scratch.url)
        defer { emulator.terminate() }
        let gateway = try await RunningGateway(
            database: scratch.url.appendingPathComponent("pushgate.sqlite").path, environment: emulator.settings)
        defer { gateway.terminate() }
        let store = FileStore(path: scratch.url.appendingPathComponent("app/push.json").path)
        let push = try manager(gateway.baseURL, store: store)

        #expect(try await push.chatOpened(serverID: "home", cwd: "/srv/a") == .noSecret)
        try await push.enablePush(forServer: "home", secret: secret)
        #expect(try await push.chatOpened(serverID: "home", cwd: "/srv/a") == .waitingForToken)
        let first = try await push.tokenChanged(to: .apns(tokenA))
        guard case .registered(let answer)? = first[ChatLocation(serverID: "home", cwd: "/srv/a")] else {
            Issue.record("the chat opened before the token is registered once it comes: \(first)")
            return
        }
        #expect(answer.created && answer.serverKey == PushgateKeys.serverKey(secret: secret))
        #expect(try await push.chatOpened(serverID: "home", cwd: "/srv/a", agentDisplayName: nil) == .coalesced)
        guard case .registered = try await push.chatOpened(serverID: "home", cwd: "/srv/b", agentDisplayName: "b@home")
        else {
            Issue.record("a second chat registers")
            return
        }

        let triggered = try await trigger(gateway, cwd: "/srv/b")
        #expect(triggered["success_count"] == 1, "\(triggered)")
        let entry = try #require(try await emulator.entries().first)
        #expect(entry["device_token"]?.stringValue == tokenA)
        let payload = try #require(entry["payload"]?.objectValue)
        let userInfo = try #require(
            try JSONSerialization.jsonObject(with: JSONValue.object(payload).encodedData()) as? [AnyHashable: Any])
        let notification = try #require(PushgateNotification(userInfo: userInfo))
        #expect(notification.kind == .replyFinished && notification.title == "b@home")
        let secrets = try await push.secrets()
        #expect(
            NotificationRouting.destination(of: notification, secrets: secrets)
                == ChatLocation(serverID: "home", cwd: "/srv/b"))
        #expect(
            !NotificationRouting.presentsBanner(
                notification, secrets: secrets, chatOnScreen: ChatLocation(serverID: "home", cwd: "/srv/b")))

        // The token changes: both chats are registered again, with the new one.
        let replayed = try await push.tokenChanged(to: .apns(tokenB))
        #expect(replayed.count == 2 && replayed.values.allSatisfy { if case .registered = $0 { true } else { false } })
        #expect(try await push.tokenChanged(to: .apns(tokenB)).isEmpty, "the same token again: nothing to do")
        _ = try await trigger(gateway, cwd: "/srv/a")
        try await waitUntil("the push for /srv/a to reach the new token", within: .seconds(15)) {
            try await emulator.entries().first?["device_token"]?.stringValue == tokenB
        }
        let client = PushgateGateway(baseURL: try #require(URL(string: gateway.baseURL)))
        let installationID = try await push.installationID()
        let listed = try await client.subscriptions(installationID: installationID, secret: secret)
        #expect(listed.subscriptions.map(\.cwd) == ["/srv/a", "/srv/b"])
        let diagnostics = try await client.diagnostics(installationID: installationID, secret: secret)
        #expect(diagnostics.installation?.tokenPreview == String(tokenB.prefix(8)))

        // Another manager over the same store (the app started again) knows it all.
        let restarted = try manager(gateway.baseURL, store: FileStore(path: store.path))
        #expect(try await restarted.installationID() == installationID)
        #expect(try await restarted.subscriptions().map(\.cwd) == ["/srv/a", "/srv/b"])

        guard case .signedOut(let signedOut) = try await push.signOut(serverID: "home") else {
            Issue.record("signed out")
            return
        }
        #expect(signedOut.removedCount == 2)
        #expect(try await push.secrets().isEmpty)
        #expect(try await push.subscriptions().isEmpty)
    }

    @Test("the gateway away: a chat's registration and a sign-out are kept, and sent on their own once it is back")
    func offlineThenBack() async throws {
        let scratch = try TemporaryDirectory(name: "e2e-client-offline")
        defer { scratch.remove() }
        let database = scratch.url.appendingPathComponent("pushgate.sqlite").path
        let first = try await RunningGateway(database: database)
        let port = first.port
        #expect(await first.stop() == 0)

        let push = try manager("http://127.0.0.1:\(port)", store: InMemoryStore())
        try await push.enablePush(forServer: "home", secret: secret)
        try await push.enablePush(forServer: "old", secret: PushSecret.generate().value)
        try await push.tokenChanged(to: .fcm("fcm-token:APA91b-offline"))
        guard case .queued(let error) = try await push.chatOpened(serverID: "home", cwd: "/srv/a") else {
            Issue.record("kept while the gateway is away")
            return
        }
        #expect(error.isTransient)
        guard case .queued = try await push.signOut(serverID: "old") else {
            Issue.record("a sign-out is kept too")
            return
        }
        #expect(try await push.pendingCount() == 2)
        #expect(try await push.secrets().keys.sorted() == ["home"], "the signed-out server is forgotten at once")

        let back = try await RunningGateway(database: database, arguments: ["--port", String(port)])
        defer { back.terminate() }
        try await waitUntil("the kept calls to be sent once the gateway answers", within: .seconds(15)) {
            try await push.pendingCount() == 0
        }
        let client = PushgateGateway(baseURL: try #require(URL(string: back.baseURL)))
        let listed = try await client.subscriptions(installationID: try await push.installationID(), secret: secret)
        #expect(listed.subscriptions.map(\.cwd) == ["/srv/a"])
        await push.stop()
    }

    @Test("errors are typed: the gateway's JSON, its Retry-After, within the caller's deadline; never the secret")
    func typedErrors() async throws {
        let scratch = try TemporaryDirectory(name: "e2e-client-errors")
        defer { scratch.remove() }
        let gateway = try await RunningGateway(
            database: scratch.url.appendingPathComponent("pushgate.sqlite").path,
            environment: ["PUSHGATE_RATE_PER_SECRET": "2", "PUSHGATE_RATE_PER_ADDRESS": "0"])
        defer { gateway.terminate() }
        let client = PushgateGateway(
            baseURL: try #require(URL(string: gateway.baseURL)), retry: RetryPolicy(deadline: .seconds(2)))

        do {
            _ = try await client.ping(secret: secret)
            Issue.record("a secret nobody registered with is not found")
        } catch {
            guard case .gateway(let refusal) = error else { throw error }
            #expect(refusal.httpStatus == 404 && refusal.code == .notFound)
            #expect(!error.description.contains(secret))
        }
        do {
            _ = try await client.register(
                Registration(cwd: "", installationID: "phone", token: .apns(tokenA)), secret: secret)
            Issue.record("an empty cwd is refused")
        } catch {
            guard case .gateway(let refusal) = error else { throw error }
            #expect(refusal.code == .invalidArgument && refusal.field == "cwd")
        }
        // Over the secret's rate: answered 429 with a wait longer than the deadline,
        // so the call ends at once rather than sleeping past it.
        let started = ContinuousClock.now
        do {
            _ = try await client.ping(secret: secret)
            Issue.record("the third call in a minute is over the rate")
        } catch {
            guard case .gateway(let refusal) = error else { throw error }
            #expect(refusal.httpStatus == 429 && refusal.code == .resourceExhausted)
            #expect((refusal.retryAfter ?? .zero) > .seconds(2), "\(refusal)")
        }
        #expect(ContinuousClock.now - started < .seconds(2))
        do {
            _ = try await client.ping(secret: "short")
            Issue.record("a secret the gateway would refuse is refused here")
        } catch {
            guard case .invalidRequest = error else { throw error }
        }
    }

    @Test(
        "Live Activity tokens: the push-to-start token goes with every chat's registration, a running activity's token is recorded and replaced"
    )
    func activityTokens() async throws {
        let scratch = try TemporaryDirectory(name: "e2e-client-activity")
        defer { scratch.remove() }
        let gateway = try await RunningGateway(database: scratch.url.appendingPathComponent("pushgate.sqlite").path)
        defer { gateway.terminate() }
        let push = try manager(gateway.baseURL, store: InMemoryStore())
        try await push.enablePush(forServer: "home", secret: secret)
        _ = try await push.tokenChanged(to: .apns(tokenA))
        _ = try await push.chatOpened(serverID: "home", cwd: "/srv/a")
        _ = try await push.chatOpened(serverID: "home", cwd: "/srv/b")
        let startToken = String(repeating: "5a", count: 40)
        let replayed = try await push.activityStartTokenChanged(to: startToken)
        #expect(replayed.count == 2 && replayed.values.allSatisfy { if case .registered = $0 { true } else { false } })
        #expect(try await push.activityStartTokenChanged(to: startToken).isEmpty, "the same token: nothing to do")

        let first = try await push.activityStarted(
            serverID: "home", cwd: "/srv/a", activityToken: String(repeating: "6b", count: 32), runID: "run-1")
        #expect(!first.replaced && first.agentKey == PushgateKeys.agentKey(cwd: "/srv/a"))
        let second = try await push.activityStarted(
            serverID: "home", cwd: "/srv/a", activityToken: String(repeating: "7c", count: 32))
        #expect(second.replaced)
        await #expect {
            try await push.activityStarted(serverID: "home", cwd: "/srv/never-opened", activityToken: tokenB)
        } throws: { error in
            guard case .gateway(let answer)? = error as? PushgateError else { return false }
            return answer.code == .notFound && answer.field == "installation_id"
        }
    }

    @Test(
        "an app pairs with an agent's machine by the link pushgate pair shows, and by its code typed: pair prints the app's name and the fingerprint it shows"
    )
    func pairFromTheApp() async throws {
        let scratch = try TemporaryDirectory(name: "e2e-client-pairs")
        defer { scratch.remove() }
        let gateway = try await RunningGateway(database: scratch.url.appendingPathComponent("pushgate.sqlite").path)
        defer { gateway.terminate() }
        let push = try manager(gateway.baseURL, store: InMemoryStore(), decides: true, deviceName: "Ana's iPhone")
        try await push.enablePush(forServer: "home", secret: secret)
        _ = try await push.tokenChanged(to: .apns(tokenA))
        _ = try await push.chatOpened(serverID: "home", cwd: "/srv/deploy")
        let fingerprint = try await push.decisionKey().fingerprint
        let environment = ["CODEAGENTS_PUSH_SECRET": secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL]
        let pins = scratch.url.appendingPathComponent("pins.json").path
        for typed in [false, true] {
            let pairing = try await RunningProcess(
                ["pair", "--json", "--pins", pins, "--wait", "60"], environment: environment, readyWhen: #""link""#)
            defer { pairing.terminate() }
            let opened = pairing.capturedOutput.split(separator: "\n").compactMap {
                (try? JSONValue.parse(Array($0.utf8)))?.objectValue
            }
            let text = try #require(opened.first?["link"]?.stringValue)
            let link = try #require(PairingLink(text))
            if typed {
                // As a person types it: in lower case, spaced.
                let spaced = link.code.grouped.lowercased().replacingOccurrences(of: "-", with: " ")
                let code = try #require(PairingCode(typed: spaced))
                // Every pairing open under the server, the first one (still open) too.
                #expect(try await push.pair(code: code) == 2)
            } else {
                #expect(try await push.pair(link: link).ok)
            }
            #expect(await pairing.exited(within: .seconds(30)) && pairing.exitStatus == 0, "\(pairing.capturedOutput)")
            #expect(
                pairing.capturedOutput.contains(#""device_name":"Ana's iPhone""#)
                    && pairing.capturedOutput.contains(#""fingerprint":"\#(fingerprint)""#), "\(pairing.capturedOutput)"
            )
        }
    }

    @Test(
        "an app that decides: its key registered, the approval it gets carries Allow and Deny, its Allow is signed and taken, the other phone's banner withdrawn"
    )
    func decideFromTheApp() async throws {
        let scratch = try TemporaryDirectory(name: "e2e-client-decides")
        defer { scratch.remove() }
        let emulator = try await RunningEmulator(directory: scratch.url)
        defer { emulator.terminate() }
        let gateway = try await RunningGateway(
            database: scratch.url.appendingPathComponent("pushgate.sqlite").path, environment: emulator.settings)
        defer { gateway.terminate() }
        let store = FileStore(path: scratch.url.appendingPathComponent("app/push.json").path)
        let push = try manager(gateway.baseURL, store: store, decides: true)
        try await push.enablePush(forServer: "home", secret: secret)
        _ = try await push.tokenChanged(to: .apns(tokenA))
        guard case .registered = try await push.chatOpened(serverID: "home", cwd: "/srv/deploy") else {
            Issue.record("the chat registers")
            return
        }
        // A second phone without a decision key: today's push, and the withdrawal.
        let other = try manager(gateway.baseURL, store: InMemoryStore())
        try await other.enablePush(forServer: "home", secret: secret)
        _ = try await other.tokenChanged(to: .apns(tokenB))
        _ = try await other.chatOpened(serverID: "home", cwd: "/srv/deploy")

        let approval = try await BuiltExecutable.run(
            ["event", "--cwd", "/srv/deploy", "--type", "approval_requested", "--event-id", "deploy-9"],
            environment: ["CODEAGENTS_PUSH_SECRET": secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL])
        #expect(approval.status == 0, "\(approval.stdout)\(approval.stderr)")
        let (pushed, notification) = try await firstPush(at: emulator, to: tokenA)
        #expect(pushed["aps"]?.objectValue?["category"] == .string(PushgateNotificationHandler.defaultCategory))

        // The Notification Service Extension's receipt (issue 75): by the push's own event id.
        let confirmed = try await push.confirm(
            .delivered, eventIDs: [try #require(notification.eventID)], serverKey: notification.serverKey)
        #expect(confirmed.recorded == 1 && confirmed.kind == "delivered")
        let handler = PushgateNotificationHandler(subscriptions: push)
        #expect(
            try await handler.answer("com.apple.UNNotificationDefaultActionIdentifier", text: nil, to: notification)
                == nil)
        let answer = try #require(try await handler.answer("allow", text: nil, to: notification))
        let installationID = try await push.installationID()
        #expect(answer.decision == "allow" && answer.decidedBy == installationID)
        do {
            _ = try await handler.answer("deny", text: "too late", to: notification)
            Issue.record("a second decision is refused")
        } catch let error as PushgateError {
            guard case .gateway(let refusal) = error else { throw error }
            #expect(refusal.httpStatus == 409 && refusal.reason == "already_decided", "\(refusal)")
        }
        // The other phone's "Approval needed" is withdrawn, and the app reads the withdrawal.
        var withdrawal: [String: JSONValue]?
        try await waitUntil("the withdrawal", within: .seconds(20), every: .milliseconds(100)) {
            withdrawal = try await emulator.entries().first {
                $0["device_token"]?.stringValue == tokenB && $0["payload"]?.objectValue?["type"] == "event_resolved"
            }?["payload"]?.objectValue
            return withdrawal != nil
        }
        let withdrawalJSON = JSONValue.object(try #require(withdrawal))
        let withdrawalInfo = try #require(
            try JSONSerialization.jsonObject(with: withdrawalJSON.encodedData()) as? [AnyHashable: Any])
        let withdrawn = try #require(PushgateNotification(userInfo: withdrawalInfo))
        #expect(PushgateNotificationHandler.withdrawnEventID(withdrawn) == "deploy-9")
        #expect(withdrawn.kind.isSilent && NotificationRouting.destination(of: withdrawn, secrets: [:]) == nil)

        // A question (issue 74): the reply category, its words signed and sent by the
        // handler, and read by the agent's side at GET /replies.
        let question = try await BuiltExecutable.run(
            [
                "event", "--cwd", "/srv/deploy", "--type", "question_asked", "--event-id", "ask-3", "--body",
                "Which region?",
            ],
            environment: ["CODEAGENTS_PUSH_SECRET": secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL])
        #expect(question.status == 0, "\(question.stdout)\(question.stderr)")
        var asked: [String: JSONValue]?
        try await waitUntil("the question", within: .seconds(20), every: .milliseconds(100)) {
            asked = try await emulator.entries().first {
                $0["device_token"]?.stringValue == tokenA && $0["payload"]?.objectValue?["type"] == "question_asked"
            }?["payload"]?.objectValue
            return asked != nil
        }
        let askedPayload = try #require(asked)
        #expect(
            askedPayload["aps"]?.objectValue?["category"] == .string(PushgateNotificationHandler.defaultReplyCategory))
        let askedInfo = try #require(
            try JSONSerialization.jsonObject(with: JSONValue.object(askedPayload).encodedData()) as? [AnyHashable: Any])
        let asking = try #require(PushgateNotification(userInfo: askedInfo))
        #expect(asking.kind == .questionAsked && asking.isAnswerable)
        #expect(try await handler.answer("allow", text: nil, to: asking) == nil, "a question takes words")
        #expect(try await handler.answer("answer", text: "  ", to: asking) == nil, "no words, no answer")
        let answered = try #require(try await handler.answer("answer", text: "eu-west-1", to: asking))
        #expect(answered.decision == "answer")
        let replies = try await CurlCall.run("GET", gateway.baseURL + "/replies?cwd=/srv/deploy", secret: secret)
        #expect(
            replies.json["replies"]?.arrayValue?.first?.objectValue?["message"] == "eu-west-1", "\(replies.body)")

        // The chat shown in the foreground (issue 75): the next reply is a silent update
        // the app reads; gone from the chat, a banner again.
        let shown = try await push.reportForeground(serverID: "home", cwd: "/srv/deploy")
        #expect(shown.foregroundCWD == "/srv/deploy" && shown.foregroundUntil != nil)
        let environment = ["CODEAGENTS_PUSH_SECRET": secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL]
        let quiet = try await BuiltExecutable.run(
            ["trigger", "--cwd", "/srv/deploy", "--message", "Deployed."], environment: environment)
        #expect(quiet.status == 0, "\(quiet.stdout)\(quiet.stderr)")
        var update: [String: JSONValue]?
        try await waitUntil("the silent update", within: .seconds(20), every: .milliseconds(100)) {
            update = try await emulator.entries().first {
                $0["device_token"]?.stringValue == tokenA && $0["payload"]?.objectValue?["type"] == "reply_finished"
            }?["payload"]?.objectValue
            return update != nil
        }
        let silent = try #require(update)
        #expect(silent["aps"]?.objectValue?["alert"] == nil && silent["body"] == "Deployed.", "\(silent)")
        let gone = try await push.reportForeground(serverID: "home", cwd: nil)
        #expect(gone.foregroundCWD == nil && gone.foregroundUntil == nil)
    }

    @Test(
        "an app that decides (issue 84): the approval that offers Always carries its category and words, the app's Always is signed over the suggestion and taken; its words to the agent are kept for the agent's side"
    )
    func alwaysAndWords() async throws {
        try await withGateway("e2e-client-always") { emulator, gateway in try await alwaysAndWords(emulator, gateway) }
    }

    /// An APNs emulator and a gateway sending to it, in a scratch folder, for `body`;
    /// both stopped by their own process, the folder removed.
    func withGateway(
        _ name: String, _ body: (RunningEmulator, RunningGateway) async throws -> Void
    ) async throws {
        let scratch = try TemporaryDirectory(name: name)
        defer { scratch.remove() }
        let emulator = try await RunningEmulator(directory: scratch.url)
        defer { emulator.terminate() }
        let gateway = try await RunningGateway(
            database: scratch.url.appendingPathComponent("pushgate.sqlite").path, environment: emulator.settings)
        defer { gateway.terminate() }
        try await body(emulator, gateway)
    }

    func alwaysAndWords(_ emulator: RunningEmulator, _ gateway: RunningGateway) async throws {
        let push = try manager(gateway.baseURL, store: InMemoryStore(), decides: true)
        try await push.enablePush(forServer: "home", secret: secret)
        _ = try await push.tokenChanged(to: .apns(tokenA))
        _ = try await push.chatOpened(serverID: "home", cwd: "/srv/deploy")
        let triggered = try await CurlCall.run(
            "POST", gateway.baseURL + "/triggerEvent", secret: secret,
            body:
                #"{"cwd": "/srv/deploy", "type": "approval_requested", "event_id": "test-3", "allow_always": "Always allow Bash(make test:*) in this project"}"#
        )
        #expect(triggered.status == 200, "\(triggered.body)")
        let (pushed, notification) = try await firstPush(at: emulator, to: tokenA)
        #expect(pushed["aps"]?.objectValue?["category"] == .string(PushgateNotificationHandler.defaultAlwaysCategory))
        #expect(notification.allowAlways == "Always allow Bash(make test:*) in this project")
        let answer = try #require(
            try await PushgateNotificationHandler(subscriptions: push).answer(
                PushgateNotificationHandler.allowAlwaysAction, text: nil, to: notification))
        #expect(answer.decision == "allow_always")
        let awaited = try await CurlCall.run(
            "POST", gateway.baseURL + "/awaitDecision", secret: secret, body: #"{"event_id": "test-3", "wait": 0}"#)
        #expect(awaited.json["decision"] == "allow_always" && awaited.json["suggestion"] == 0, "\(awaited.body)")

        let said = try await push.say("Also run the linter.", toAgentAt: "/srv/deploy", serverID: "home")
        #expect(!said.repeated)
        let replies = try await CurlCall.run(
            "GET", gateway.baseURL + "/replies?cwd=%2Fsrv%2Fdeploy&kind=message", secret: secret)
        let listed = try #require(replies.json["replies"]?.arrayValue?.first?.objectValue, "\(replies.body)")
        let installationID = try await push.installationID()
        #expect(listed["message"] == "Also run the linter." && listed["decided_by"] == .string(installationID))
        // Signed over say:<agent key>, by the key the app registered.
        let key = try await push.decisionKey()
        let signed = SignedDecision(
            serverKey: PushgateKeys.serverKey(secret: secret), eventID: try #require(listed["event_id"]?.stringValue),
            installationID: installationID, decision: .say, signedAt: try #require(Self.seconds(listed["signed_at"])),
            message: "Also run the linter.", signature: try #require(listed["signature"]?.stringValue),
            scope: PushgateKeys.agentKey(cwd: "/srv/deploy"))
        #expect(signed.isSigned(by: try #require(DecisionKey(key.publicKey))))
    }

    static func seconds(_ value: JSONValue?) -> Int64? {
        guard case .number(let number)? = value else { return nil }
        return Int64(exactly: number)
    }
}

/// `PushgateClient` in a web app or on a phone with a UnifiedPush distributor: a Web
/// Push subscription registered through the package, delivered by a gateway process
/// to the Web Push emulator, and the opened push read back as the package's notification.
@Suite("End to end: the Swift client package with Web Push")
struct ClientWebPushEndToEndTests {
    let secret = PushSecret.generate().value

    @Test("a .webpush registration; the trigger's push opens into the same notification an APNs push gives")
    func webPushRegistration() async throws {
        let scratch = try TemporaryDirectory(name: "e2e-client-webpush")
        defer { scratch.remove() }
        let emulator = try await RunningEmulator(.webpush, directory: scratch.url)
        defer { emulator.terminate() }
        let gateway = try await RunningGateway(
            database: scratch.url.appendingPathComponent("pushgate.sqlite").path, environment: emulator.settings)
        defer { gateway.terminate() }
        let made = try await APNsEndToEndTests.curl([
            "--cacert", try #require(emulator.settings["PUSHGATE_WEBPUSH_CA_FILE"]), "-X", "POST",
            emulator.url + "/subscriptions",
        ])
        let subscription = try JSONDecoder().decode(WebPushSubscription.self, from: Data(made.utf8))
        let client = PushgateGateway(
            baseURL: try #require(URL(string: gateway.baseURL)), retry: RetryPolicy(deadline: .seconds(5)))
        let answer = try await client.register(
            Registration(
                cwd: "/srv/web", installationID: "browser-1", token: .webpush(subscription),
                agentDisplayName: "web@home", platform: .web),
            secret: secret)
        #expect(answer.created)
        #expect(PushToken.webpush(subscription).description == "webpush:" + emulator.url, "never the endpoint's path")

        let result = try await BuiltExecutable.run(
            ["trigger", "--cwd", "/srv/web", "--message", "Reply for the web"],
            environment: ["CODEAGENTS_PUSH_SECRET": secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let payload = try #require(try await emulator.entries().first?["payload"])
        let opened = try #require(
            try JSONSerialization.jsonObject(with: payload.encodedData()) as? [String: Any])
        let notification = try #require(PushgateNotification(webPush: opened))
        #expect(notification.kind == .replyFinished && notification.title == "web@home")
        #expect(notification.body == "Reply for the web" && notification.cwd == "/srv/web")
        #expect(notification.serverKey == PushgateKeys.serverKey(secret: secret))
    }
}
