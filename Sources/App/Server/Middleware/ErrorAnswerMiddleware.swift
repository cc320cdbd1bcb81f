import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import PushgateCore

/// Turns every error into the documented JSON answer: function errors as they are,
/// an unknown path as 404, a known path with another method as 405 with `Allow`, a
/// body over the limit as 413, a body the client stopped sending as 400 (it is gone;
/// the request log line says so, no error is logged), a store that cannot answer as
/// 503, anything else as a bare 500 that tells nothing of the inside (the log does).
struct ErrorAnswerMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The methods each path answers, for 405's `Allow`.
    let allowedMethods: [String: [HTTPRequest.Method]]

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return try answer(for: error, to: request, context: context)
        }
    }

    private func answer(for error: any Error, to request: Request, context: Context) throws -> Response {
        switch error {
        case let error as FunctionError:
            return try error.response(from: request, context: context)
        case let error as HTTPError where error.status == .notFound:
            guard let methods = allowedMethods[request.uri.path] else {
                return try FunctionError(.notFound, "no function at \(request.uri.path)")
                    .response(from: request, context: context)
            }
            let allow = methods.map(\.rawValue).joined(separator: ", ")
            var response = try FunctionError(.methodNotAllowed, "\(request.uri.path) accepts \(allow) only")
                .response(from: request, context: context)
            response.headers[.allow] = allow
            return response
        case is NIOTooManyBytesError:
            return try FunctionError(
                .payloadTooLarge, "the request body is over \(FunctionRoutes.maxBodyBytes / 1024) KiB"
            )
            .response(from: request, context: context)
        case is HTTPParserError, ChannelError.eof, ChannelError.ioOnClosedChannel, ChannelError.outputClosed:
            context.logger.debug("the client stopped sending its request", metadata: ["detail": "\(error)"])
            return try FunctionError(.invalidArgument, "the request ended before its body was complete")
                .response(from: request, context: context)
        case let error as DocumentStoreError where error.isUnavailable:
            context.logger.error("store unavailable", metadata: ["error": "\(error)"])
            return try FunctionError(.unavailable, "the store is unavailable; try again later")
                .response(from: request, context: context)
        default:
            context.logger.error(
                "internal error",
                metadata: ["error": .string(String(reflecting: type(of: error))), "detail": "\(error)"])
            return try FunctionError.internal.response(from: request, context: context)
        }
    }
}
