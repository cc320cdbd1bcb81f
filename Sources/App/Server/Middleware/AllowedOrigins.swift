import Foundation
import HTTPTypes
import Hummingbird

/// Cross-origin calls from the web apps an operator names (`PUSHGATE_CORS_ORIGINS`):
/// a page or a service worker on `https://app.example.com` registers its browser's
/// subscription and confirms its pushes (`/receipts`) with the push secret in the
/// `Authorization` header — which makes every such call preflighted.
///
/// Hummingbird's `CORSMiddleware` takes a list of origins only as a variadic
/// argument, not one read from a setting, so the few rules live here: an allowed
/// `Origin` gets itself back in `Access-Control-Allow-Origin` (never `*`: the calls
/// carry a secret) on every answer, errors too, with `Vary: Origin`; its preflight
/// (`OPTIONS` with `Access-Control-Request-Method`) is answered 204 with the methods
/// and headers the functions take. Any other origin gets no CORS header, so its
/// browser keeps the answer from its page; a call without `Origin` (curl, an agent
/// server) is unchanged.
struct AllowedOrigins<Context: RequestContext>: RouterMiddleware {
    let origins: Set<String>

    init(_ origins: Set<String>) {
        self.origins = origins
    }

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let origin = request.headers[.origin], origins.contains(origin) else {
            return try await next(request, context)
        }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            var headers = Self.headers(for: origin)
            headers[.accessControlAllowMethods] = "GET, POST, HEAD"
            headers[.accessControlAllowHeaders] = "Authorization, Content-Type, Idempotency-Key"
            headers[.accessControlMaxAge] = "600"
            return Response(status: .noContent, headers: headers)
        }
        var response = try await next(request, context)
        for field in Self.headers(for: origin) { response.headers.append(field) }
        return response
    }

    private static func headers(for origin: String) -> HTTPFields {
        [.accessControlAllowOrigin: origin, .vary: "Origin"]
    }
}
