import ArgumentParser
import Foundation
import PushgateClient
import PushgateCore

struct SubscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribe",
        abstract: "Subscribe a device to an agent (registerSubscription)."
    )

    @OptionGroup var gateway: GatewayCallOptions

    @Option(help: "The agent's working directory on its server.")
    var cwd: String

    @Option(help: "A stable id of the app installation (a UUID).")
    var installationId: String

    @Option(help: "The device's APNs token, in hex.")
    var apnsToken: String?

    @Option(help: "The device's FCM registration token.")
    var fcmToken: String?

    @Option(
        help: ArgumentHelp(
            "A Web Push subscription: a file holding a browser's or UnifiedPush distributor's PushSubscription JSON.",
            valueName: "file"))
    var webpushFile: String?

    @Option(help: "The agent's display name, shown as the notification title.")
    var name: String?

    @Option(help: "What the person calls the device (1 to 64 characters): shown when it pairs and as who decided.")
    var deviceName: String?

    @Option(help: "ios, ipados, macos, android or web. Default: ios.")
    var platform: String?

    @Option(
        help: ArgumentHelp(
            "A file of this device's decision key (P-256, PEM), made 0600 when missing: its public half is registered, and pushgate decide signs with it.",
            valueName: "file"))
    var decisionKeyFile: String?

    @Option(help: "Seconds to wait for the answer.")
    var timeout: Double = 10

    func validate() throws {
        guard apnsToken != nil || fcmToken != nil || webpushFile != nil else {
            throw ValidationError("pass --apns-token, --fcm-token or --webpush-file")
        }
    }

    func run() async throws {
        var body: [String: JSONValue] = ["cwd": .string(cwd), "installation_id": .string(installationId)]
        body["apns_token"] = apnsToken.map(JSONValue.string)
        body["fcm_token"] = fcmToken.map(JSONValue.string)
        body["webpush"] = try webpushFile.map(Self.subscription(in:))
        body["agent_display_name"] = name.map(JSONValue.string)
        body["platform"] = platform.map(JSONValue.string)
        body["device_name"] = deviceName.map(JSONValue.string)
        if let decisionKeyFile {
            let key = try DecisionKeyFile(path: decisionKeyFile).loadOrCreate()
            body["decision_key"] = .string(key.publicKey)
            // What `pushgate pair` prints when this device pairs: the person compares them.
            StandardError.write("decision key fingerprint: \(key.fingerprint)\n")
        }
        try await gateway.client(timeout: timeout).call("registerSubscription", body: body)
    }

    /// The JSON object in `path` (the gateway checks what it holds).
    private static func subscription(in path: String) throws -> JSONValue {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 64 * 1024 else {
            throw CommandFailure("cannot read \(path) (a PushSubscription JSON of at most 64 KiB)")
        }
        guard case .object(let object)? = try? JSONValue.parse(Array(data)) else {
            throw CommandFailure("\(path) holds no JSON object (a PushSubscription's toJSON())")
        }
        return .object(object)
    }
}
