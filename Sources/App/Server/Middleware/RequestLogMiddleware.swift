import Foundation
import HTTPTypes
import Hummingbird
import Logging
import PushgateCore
import PushgateFunctions

/// Logs each request once, when it is answered: method, path (never the query,
/// which may name an installation), status, duration and a request id. The id is
/// the caller's `X-Request-Id` when it is a short token, else a new one; it is sent
/// back in the answer's `X-Request-Id`, so that a caller can quote it. Headers are
/// never logged, so neither is the `Authorization` secret.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    static var requestIDHeader: HTTPField.Name { HTTPField.Name("X-Request-Id")! }

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        let id = request.headers[Self.requestIDHeader].flatMap(Self.acceptable) ?? Self.newID()
        var context = context
        // One id per line: this one (which the caller may have chosen) instead of Hummingbird's.
        context.logger[metadataKey: "hb.request.id"] = nil
        context.logger[metadataKey: "request_id"] = .string(id)
        let path = String(request.uri.path.prefix(200))
        do {
            var response = try await next(request, context)
            response.headers[Self.requestIDHeader] = id
            log(request, path: path, status: response.status.code, since: started, context: context)
            return response
        } catch {
            log(request, path: path, status: answeredStatus(of: error), since: started, context: context)
            throw error
        }
    }

    private func log(
        _ request: Request, path: String, status: Int, since started: ContinuousClock.Instant, context: Context
    ) {
        let elapsed = ContinuousClock.now - started
        context.logger.info(
            "request",
            metadata: [
                "method": .string(request.method.rawValue),
                "path": .string(path),
                "status": .stringConvertible(status),
                "duration_ms": .string(String(format: "%.2f", elapsed.seconds * 1000)),
            ]
        )
    }

    /// 1–64 characters of letters, digits, `-`, `_`, `.`: anything else could forge log lines.
    private static func acceptable(_ id: String) -> String? {
        guard (1...64).contains(id.utf8.count),
            id.utf8.allSatisfy({
                $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".")
            })
        else { return nil }
        return id
    }

    private static func newID() -> String {
        String(UInt64.random(in: 0...UInt64.max), radix: 16, uppercase: false)
    }
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
