import PushgateAPNs
import ServiceLifecycle

/// Keeps the APNs connections for the life of the gateway and closes them on
/// shutdown, after the HTTP server stopped taking triggers (services stop in the
/// reverse order of their start).
struct ProviderShutdownService: Service {
    let provider: APNsPushProvider

    func run() async throws {
        try? await gracefulShutdown()
        await provider.shutdown()
    }
}
