import HTTPTypes
import Hummingbird
import PushgateCore

/// Applies the rate limits to the functions and the documents the push services
/// publish — per client address always, per secret when the request carries a valid
/// one — and to the health checks, per client
/// address with a limit of their own (metrics are on their own port). A refused call
/// is answered before its body is read.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext

    let limiter: RateLimiter
    /// The functions' and published documents' paths, with their leading `/`.
    let paths: Set<String>
    /// The health checks' paths.
    static let healthPaths: Set<String> = ["/healthz", "/readyz"]

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        let isHealthCheck = Self.healthPaths.contains(path)
        guard isHealthCheck || paths.contains(path) else { return try await next(request, context) }
        var context = context
        let address = limiter.clientAddress.resolve(
            peer: context.remoteAddress?.ipAddress, forwardedFor: request.headers[.xForwardedFor])
        context.clientAddress = address
        if isHealthCheck {
            try limiter.admitHealthCheck(from: address)
            return try await next(request, context)
        }
        let secret = request.headers[.authorization].flatMap(PushSecret.init(authorizationHeader:))
        try limiter.admitCall(from: address, serverKey: secret?.serverKey)
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    static var xForwardedFor: Self { Self("X-Forwarded-For")! }
}
