import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Answers an ``EmulatorRequest`` of an emulator's own HTTP/2 streams with a
/// Hummingbird router: the pages and the inbox are the same routes whichever
/// transport reaches them.
struct RouterBridge: Sendable {
    let responder: RouterResponder<BasicRequestContext>
    let logger: Logger

    func answer(_ request: EmulatorRequest, channel: any Channel) async -> EmulatorAnswer {
        var fields = HTTPFields()
        for (name, value) in request.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        let head = HTTPRequest(
            method: HTTPRequest.Method(request.method) ?? .get, scheme: "https", authority: request.authority,
            path: request.path, headerFields: fields)
        let hummingbirdRequest = Request(head: head, body: RequestBody(buffer: ByteBuffer(bytes: request.body)))
        let context = BasicRequestContext(source: .init(channel: channel, logger: logger))
        let response: Response
        do {
            response = try await responder.respond(to: hummingbirdRequest, context: context)
        } catch let error as any HTTPResponseError {
            guard let made = try? error.response(from: hummingbirdRequest, context: context) else {
                return EmulatorAnswer(status: 500)
            }
            response = made
        } catch {
            return EmulatorAnswer(status: 500)
        }
        var answer = EmulatorAnswer(
            status: response.status.code,
            headers: response.headers.map { ($0.name.canonicalName, $0.value) })
        let collector = BodyCollector()
        try? await response.body.write(collector)
        answer.body = collector.bytes.bytes
        return answer
    }
}

/// Gathers a response body's buffers.
private struct BodyCollector: ResponseBodyWriter {
    final class Bytes {
        var bytes: [UInt8] = []
    }
    let bytes = Bytes()

    mutating func write(_ buffer: ByteBuffer) async throws {
        bytes.bytes.append(contentsOf: buffer.readableBytesView)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
