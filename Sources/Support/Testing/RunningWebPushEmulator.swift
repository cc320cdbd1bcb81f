import Foundation
import PushgateCore
import PushgateEmulators
import PushgateWebPush

/// The Web Push emulator running in this process on a free loopback port, with a
/// VAPID key written beside its CA: what a gateway's `PUSHGATE_WEBPUSH_*` point at.
public struct RunningWebPushEmulator: Sendable {
    public let emulator: WebPushEmulator
    public let server: BackgroundServer
    /// A fresh VAPID private key (PEM, 0600), for `PUSHGATE_WEBPUSH_VAPID_KEY_PATH`.
    public let vapidKeyFile: String

    /// `https://127.0.0.1:<port>`, `http://` when it speaks plain HTTP.
    public var url: String { "\(emulator.configuration.protocols.scheme)://127.0.0.1:\(server.port)" }
    public var certificateAuthorityFile: String { server.certificateAuthorityFile }

    public static func start(configure: (inout WebPushEmulatorConfiguration) -> Void = { _ in }) async throws
        -> RunningWebPushEmulator
    {
        var configuration = WebPushEmulatorConfiguration()
        configure(&configuration)
        let emulator = WebPushEmulator(configuration: configuration)
        let server = try await BackgroundServer.start(label: "webpush-emulator") { identity, logger, onRunning in
            try emulator.application(port: 0, identity: identity, logger: logger, onRunning: onRunning)
        }
        let vapidKeyFile = server.directory.path("vapid.pem")
        guard
            FileManager.default.createFile(
                atPath: vapidKeyFile, contents: Data(VAPIDKey.generatePEM().utf8),
                attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown) }
        return RunningWebPushEmulator(emulator: emulator, server: server, vapidKeyFile: vapidKeyFile)
    }

    /// A new subscription, as a browser's `PushSubscription.toJSON()`.
    public func subscribe(applicationServerKey: String? = nil) -> JSONValue {
        emulator.subscribe(origin: url, applicationServerKey: applicationServerKey)
    }

    public func stop() async {
        await server.stop()
    }
}
