import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PushgateCore
import PushgateSQLite
import Testing

/// Every example in `functions/*/examples/` through the real router and a real
/// SQLite store: the contract and the code cannot drift apart.
@Suite("Contract examples from functions/")
struct ContractTests {
    static let functionsDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("functions")

    struct Example: CustomTestStringConvertible, Sendable {
        let function: String
        let name: String
        let isValid: Bool
        let content: [String: JSONValue]

        var testDescription: String { "\(function)/\(isValid ? "valid" : "invalid")/\(name)" }
    }

    static func examples() throws -> [Example] {
        var examples: [Example] = []
        let manager = FileManager.default
        for function in try manager.contentsOfDirectory(atPath: functionsDirectory.path).sorted() {
            for kind in ["valid", "invalid"] {
                let folder = functionsDirectory.appendingPathComponent("\(function)/examples/\(kind)")
                guard let files = try? manager.contentsOfDirectory(atPath: folder.path) else { continue }
                for file in files.sorted() where file.hasSuffix(".json") {
                    let data = try Data(contentsOf: folder.appendingPathComponent(file))
                    let content = try #require(try JSONValue.parse(Array(data)).objectValue)
                    examples.append(
                        Example(
                            function: function, name: String(file.dropLast(5)), isValid: kind == "valid",
                            content: content))
                }
            }
        }
        return examples
    }

    @Test("there are examples of both functions, valid and invalid")
    func examplesExist() throws {
        let examples = try Self.examples()
        for function in ["registerSubscription", "triggerReplyFinished"] {
            #expect(examples.contains { $0.function == function && $0.isValid })
            #expect(examples.contains { $0.function == function && !$0.isValid })
        }
    }

    @Test("each example gets its answer; an invalid one changes nothing", arguments: try examples())
    func example(_ example: Example) async throws {
        let fixture = try RouterFixture()
        try await fixture.withClient { client in
            for setup in example.content["setup"].flatMap(Self.array) ?? [] {
                let function = try #require(setup.objectValue?["function"]?.stringValue)
                let body = try #require(setup.objectValue?["body"])
                let response = try await client.post(
                    "/\(function)", json: body, headers: try Self.headers(setup.objectValue?["headers"]))
                try #require(response.status == .ok, "setup call: \(String(buffer: response.body))")
            }
            let before = try await fixture.allDocuments()

            let request = try #require(example.content["request"]?.objectValue)
            let response = try await client.execute(
                uri: "/\(example.function)" + (try Self.query(request["query"])),
                method: HTTPRequest.Method(request["method"]?.stringValue ?? "POST") ?? .post,
                headers: try Self.headers(request["headers"]),
                body: try Self.body(request)
            )
            let answer = try #require(example.content["answer"]?.objectValue)
            let status = try #require(answer["status"].flatMap(Self.int))
            #expect(response.status.code == status, "\(String(buffer: response.body))")
            #expect(response.headers[.contentType] == "application/json; charset=utf-8")
            if example.isValid {
                // Values that depend on the clock are left out of the comparison.
                let ignored = Set((example.content["ignore"].flatMap(Self.array) ?? []).compactMap(\.stringValue))
                #expect(response.json.map { Self.removing(ignored, from: $0) } == answer["body"])
            } else {
                let expected = try #require(answer["error"]?.objectValue)
                let error = try #require(response.json?.objectValue?["error"]?.objectValue)
                #expect(error["status"] == expected["status"])
                #expect(error["field"] == expected["field"], "the field at fault")
                #expect(error["message"]?.stringValue?.isEmpty == false)
                #expect(try await fixture.allDocuments() == before, "a rejected request changed stored data")
            }
        }
    }

    static func headers(_ value: JSONValue?) throws -> HTTPFields {
        guard let value else { return RouterFixture.authorized() }
        var fields = HTTPFields()
        for (name, text) in value.objectValue ?? [:] {
            fields[try #require(HTTPField.Name(name))] = try #require(text.stringValue)
        }
        return fields
    }

    /// `?name=value&…`, percent-encoded, from a `query` object.
    static func query(_ value: JSONValue?) throws -> String {
        guard let object = value?.objectValue, !object.isEmpty else { return "" }
        var components = URLComponents()
        components.queryItems = try object.keys.sorted().map {
            URLQueryItem(name: $0, value: try #require(object[$0]?.stringValue))
        }
        return "?" + (components.percentEncodedQuery ?? "")
    }

    static func body(_ request: [String: JSONValue]) throws -> ByteBuffer {
        if request["method"]?.stringValue == "GET", request["body"] == nil { return ByteBuffer() }
        if let raw = request["raw_body"]?.stringValue {
            return ByteBuffer(string: raw)
        }
        if let base64 = request["raw_body_base64"]?.stringValue {
            return ByteBuffer(bytes: try #require(Data(base64Encoded: base64)))
        }
        return ByteBuffer(bytes: try #require(request["body"]).encodedData())
    }

    static func removing(_ keys: Set<String>, from value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            .object(object.filter { !keys.contains($0.key) }.mapValues { removing(keys, from: $0) })
        case .array(let items): .array(items.map { removing(keys, from: $0) })
        default: value
        }
    }

    static func array(_ value: JSONValue) -> [JSONValue]? {
        if case .array(let items) = value { return items }
        return nil
    }

    static func int(_ value: JSONValue) -> Int? {
        if case .number(let number) = value { return Int(number) }
        return nil
    }
}
