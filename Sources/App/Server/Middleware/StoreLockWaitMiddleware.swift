import Hummingbird
import PushgateCore

/// Every request waits at most ``StoreLockWait/request`` for a store lock another
/// process holds, then is answered 503: a caller with a 2.5 s time-out hears
/// "unavailable" in time instead of nothing, and requests do not queue up behind a
/// held database for 10 s each.
struct StoreLockWaitMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        try await StoreLockWait.$limit.withValue(StoreLockWait.request) {
            try await next(request, context)
        }
    }
}
