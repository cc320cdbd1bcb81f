import HTTPTypes
import Hummingbird
import PushgateCore

/// Applies the rate limits to the functions (not to health checks or metrics):
/// per client address always, per secret when the request carries a valid one. A
/// refused call is answered before its body is read.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext

    let limiter: RateLimiter
    /// The paths limited, with their leading `/`.
    let paths: Set<String>

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard paths.contains(request.uri.path) else { return try await next(request, context) }
        var context = context
        let address = limiter.clientAddress.resolve(
            peer: context.remoteAddress?.ipAddress, forwardedFor: request.headers[.xForwardedFor])
        context.clientAddress = address
        let secret = request.headers[.authorization].flatMap(PushSecret.init(authorizationHeader:))
        try limiter.admitCall(from: address, serverKey: secret?.serverKey)
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    static var xForwardedFor: Self { Self("X-Forwarded-For")! }
}
