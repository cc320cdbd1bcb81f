import Crypto
import Foundation
import PushgateClient
import PushgateCore
import PushgateSealing
import PushgateTesting
import Testing

/// Sealed pushes (issue 63) as an app and an agent use them: `PushgateClient` phones
/// registering their keys with a gateway process, the agent's trigger, what the APNs
/// and FCM emulators received opened by the client and by PyPI's http-ece.
@Suite("End to end: sealed pushes", .serialized)
struct SealedPushesEndToEndTests {
    let secret = PushSecret.generate().value
    static let cwd = "/srv/secret-project"
    static let name = "secret-name@home"
    static let preview = "The password is hunter2."

    /// `Tests/compat/sealed_pushes.py`, beside this file's folder.
    static let httpECEClient = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("compat/sealed_pushes.py").path

    /// A phone as the app sets it up: its token, its chat with the agent opened.
    func phone(_ gateway: RunningGateway, token: PushToken, sealed: Bool) async throws -> SubscriptionManager {
        let manager = SubscriptionManager(
            gateway: PushgateGateway(baseURL: try #require(URL(string: gateway.baseURL))), store: InMemoryStore(),
            options: .init(platform: .ios, bundleID: "com.example.app", sealsPushes: sealed))
        try await manager.enablePush(forServer: "home", secret: secret)
        _ = try await manager.tokenChanged(to: token)
        guard
            case .registered = try await manager.chatOpened(
                serverID: "home", cwd: Self.cwd, agentDisplayName: Self.name)
        else {
            throw SealedPushesTestError("the chat did not register")
        }
        return manager
    }

    /// A JSON object as the app's `userInfo`.
    static func userInfo(_ object: [String: JSONValue]) throws -> [AnyHashable: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: JSONValue.object(object).encodedData()) as? [AnyHashable: Any])
    }

    @Test(
        "APNs and FCM get the neutral text and a record the app opens into the reply; a phone without keys, the reply in clear; http-ece opens them too and finds nothing in clear"
    )
    func sealedThroughBothServices() async throws {
        let scratch = try TemporaryDirectory(name: "e2e-sealed")
        defer { scratch.remove() }
        let apns = try await RunningEmulator(.apns, directory: scratch.url)
        let fcm = try await RunningEmulator(.fcm, directory: scratch.url)
        defer {
            apns.terminate()
            fcm.terminate()
        }
        var settings = apns.settings.merging(fcm.settings) { $1 }
        settings["PUSHGATE_SEALED_TITLE"] = "Agent news"
        let gateway = try await RunningGateway(
            database: scratch.url.appendingPathComponent("pushgate.sqlite").path, environment: settings)
        defer { gateway.terminate() }

        let apnsToken = String(repeating: "a1", count: 32)
        let clearToken = String(repeating: "c3", count: 32)
        let fcmToken = "cSealed:APA91b" + String(repeating: "z", count: 100)
        let sealedPhone = try await phone(gateway, token: .apns(apnsToken), sealed: true)
        let fcmPhone = try await phone(gateway, token: .fcm(fcmToken), sealed: true)
        _ = try await phone(gateway, token: .apns(clearToken), sealed: false)

        let trigger = try await BuiltExecutable.run(
            ["trigger", "--cwd", Self.cwd, "--message", Self.preview],
            environment: ["CODEAGENTS_PUSH_SECRET": secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL])
        #expect(trigger.status == 0, "\(trigger.stdout)\(trigger.stderr)")
        let answer = try #require(try JSONValue.parse(Array(trigger.stdout.utf8)).objectValue)
        #expect(answer["success_count"] == 3, "\(answer)")

        // APNs: the sealed phone's push opens into the reply; the other phone's is in clear.
        let apnsEntries = try await apns.entries()
        let sealedPayload = try #require(
            apnsEntries.first { $0["device_token"]?.stringValue == apnsToken }?["payload"]?.objectValue)
        #expect(
            sealedPayload["aps"]?.objectValue?["alert"] == ["title": "Agent news", "body": "Open the app to see it."])
        #expect(sealedPayload["aps"]?.objectValue?["mutable-content"] == 1)
        let opened = try #require(
            PushgateNotification(sealed: try Self.userInfo(sealedPayload), keys: try await sealedPhone.payloadKeys()))
        #expect(opened.kind == .replyFinished && opened.cwd == Self.cwd && opened.title == Self.name)
        #expect(opened.body?.contains("hunter2") == true)
        #expect(opened.serverKey == PushgateKeys.serverKey(secret: secret))
        let clearPayload = try #require(
            apnsEntries.first { $0["device_token"]?.stringValue == clearToken }?["payload"]?.objectValue)
        #expect(clearPayload["encrypted"] == nil && clearPayload["cwd"]?.stringValue == Self.cwd)
        // Keyed ids (issue 72): a sealed phone's thread and collapse ids are neither the
        // folder's plain hash nor the clear phone's, and stay the same for the agent's
        // next push, so that they still group and replace.
        let agentKey = AgentKey(cwd: Self.cwd).hex
        let sealedEntry = try #require(apnsEntries.first { $0["device_token"]?.stringValue == apnsToken })
        let thread = try #require(sealedPayload["aps"]?.objectValue?["thread-id"]?.stringValue)
        let collapse = try #require(sealedEntry["headers"]?.objectValue?["apns-collapse-id"]?.stringValue)
        #expect(thread != agentKey && collapse != agentKey && thread.count == 64, "keyed, not the folder's hash")
        #expect(clearPayload["aps"]?.objectValue?["thread-id"]?.stringValue == agentKey, "in clear as before")

        // FCM: data holds the record alone; what FCM forwards to an iPhone opens the same way.
        let message = try #require(
            try await fcm.entries().first { $0["token"]?.stringValue == fcmToken }?["message"]?.objectValue)
        let data = try #require(message["data"]?.objectValue)
        #expect(Array(data.keys) == ["encrypted"])
        var forwarded = try #require(message["apns"]?.objectValue?["payload"]?.objectValue)
        forwarded["encrypted"] = data["encrypted"]
        let fromFCM = try #require(
            PushgateNotification(sealed: try Self.userInfo(forwarded), keys: try await fcmPhone.payloadKeys()))
        #expect(fromFCM.cwd == Self.cwd && fromFCM.body?.contains("hunter2") == true)

        // http-ece (PyPI) opens both records and finds every secret inside, none outside.
        var keys: [String: JSONValue] = [:]
        for (token, phone) in [(apnsToken, sealedPhone), (fcmToken, fcmPhone)] {
            let pair = try await phone.payloadKeys()
            keys[token] = [
                "private": .string(Base64URL.encode(pair.privateKey.rawRepresentation)),
                "auth": .string(Base64URL.encode(pair.auth)),
            ]
        }
        let keysFile = scratch.url.appendingPathComponent("keys.json")
        try JSONValue.object(keys).encodedData().write(to: keysFile)
        var arguments = [
            "python3", Self.httpECEClient, "--apns", apns.url, "--apns-ca",
            try #require(apns.settings["PUSHGATE_APNS_CA_FILE"]),
            "--fcm", fcm.url, "--fcm-ca", try #require(fcm.settings["PUSHGATE_FCM_CA_FILE"]), "--keys", keysFile.path,
        ]
        for secretText in ["hunter2", Self.cwd, Self.name, PushgateKeys.serverKey(secret: secret)] {
            arguments += ["--secret", secretText]
        }
        // The folder's plain SHA-256 (the agent key: a reply's thread and collapse ids
        // in clear) would let anyone confirm a guessed folder (issue 72).
        arguments += ["--not-in-clear", AgentKey(cwd: Self.cwd).hex]
        let checked = try await BuiltExecutable.run(arguments, program: URL(fileURLWithPath: "/usr/bin/env"))
        #expect(checked.status == 0, "http-ece: \(checked.stdout)\(checked.stderr)")
        #expect(try JSONValue.parse(Array(checked.stdout.utf8)).objectValue?["opened"] == 2)

        // The agent's next push: the same keyed ids.
        let again = try await BuiltExecutable.run(
            ["trigger", "--cwd", Self.cwd, "--message", "Second reply."],
            environment: ["CODEAGENTS_PUSH_SECRET": secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL])
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        let second = try #require(
            try await apns.entries().first {
                $0["device_token"]?.stringValue == apnsToken && $0["payload"] != .object(sealedPayload)
            })
        #expect(second["payload"]?.objectValue?["aps"]?.objectValue?["thread-id"]?.stringValue == thread)
        #expect(second["headers"]?.objectValue?["apns-collapse-id"]?.stringValue == collapse, "replaces as in clear")
    }
}

struct SealedPushesTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
