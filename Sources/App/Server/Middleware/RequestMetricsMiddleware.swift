import Hummingbird
import Metrics

/// Counts each request once by function and status
/// (`pushgate_http_requests_total{function, status}`) and times it by function
/// (`pushgate_http_request_duration_seconds{function}`). The function is the
/// request's path when it is one the gateway serves, else `other`: a path never
/// becomes a label of its own, whatever a caller or a scanner sends.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The paths served, without their leading `/`.
    let functions: Set<String>

    init(paths: some Sequence<String>) {
        functions = Set(paths.map { String($0.drop { $0 == "/" }) })
    }

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        let path = request.uri.path.drop { $0 == "/" }
        let function = functions.contains(String(path)) ? String(path) : "other"
        do {
            let response = try await next(request, context)
            record(function: function, status: response.status.code, since: started)
            return response
        } catch {
            record(function: function, status: answeredStatus(of: error), since: started)
            throw error
        }
    }

    private func record(function: String, status: Int, since started: ContinuousClock.Instant) {
        Counter(
            label: "pushgate_http_requests_total", dimensions: [("function", function), ("status", String(status))]
        ).increment()
        Metrics.Timer(label: "pushgate_http_request_duration_seconds", dimensions: [("function", function)])
            .record(duration: ContinuousClock.now - started)
    }
}
