import Foundation
import HTTPTypes
import Hummingbird
import PushgateCore

/// Writes a function's answer as JSON: its properties in snake case
/// (`installationID` → `installation_id`), so that answer types declare no coding keys.
enum JSONAnswer {
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return response(bytes: data, status: status)
    }

    /// A JSON value written by ``JSONWriter`` (the bytes `JSONEncoder` gives, without
    /// going through `Codable`).
    static func response(json value: JSONValue, status: HTTPResponse.Status = .ok) throws -> Response {
        response(bytes: try value.encodedBytes(), status: status)
    }

    private static func response(bytes: some Sequence<UInt8>, status: HTTPResponse.Status) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }
}
