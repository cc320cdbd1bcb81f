import HTTPTypes
import Hummingbird

/// Gives every later step one spelling of a path: empty segments are dropped, so
/// `//ping`, `/ping/` and `/ping//` are `/ping` for the router, the rate limits, the
/// metrics and the log alike. (The router already ignored empty segments while the
/// limits matched the exact path: a slash skipped every limit.) Collapsed rather
/// than refused, so that a client whose base URL ends in `/` keeps working.
struct CanonicalPathMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let canonical = Self.canonical(request.uri.path) else { return try await next(request, context) }
        var head = request.head
        let query = request.uri.query.map { "?" + $0 } ?? ""
        head.path = canonical + query
        return try await next(Request(head: head, body: request.body), context)
    }

    /// `path` without empty segments, or `nil` when it has none to drop.
    static func canonical(_ path: String) -> String? {
        guard path.contains("//") || (path.count > 1 && path.hasSuffix("/")) else { return nil }
        return "/" + path.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
    }
}
