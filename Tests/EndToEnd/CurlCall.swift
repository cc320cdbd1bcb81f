import Foundation
import PushgateCore

/// One HTTP call made with curl (a client nobody here wrote), the body sent as the
/// exact bytes given: its status, headers (names in lower case) and body.
struct CurlCall {
    let status: Int
    let headers: [String: String]
    let body: String

    var json: [String: JSONValue] { (try? JSONValue.parse(Array(body.utf8)))?.objectValue ?? [:] }
    /// `error.status` of an error answer.
    var errorStatus: String? { json["error"]?.objectValue?["status"]?.stringValue }
    var errorField: String? { json["error"]?.objectValue?["field"]?.stringValue }

    static func run(
        _ method: String, _ url: String, secret: String?, body: String? = nil, headers: [String] = []
    ) async throws -> CurlCall {
        var arguments = ["curl", "-sS", "-X", method, url, "-D", "-", "-H", "Content-Type: application/json"]
        if let secret { arguments += ["-H", "Authorization: Bearer \(secret)"] }
        for header in headers { arguments += ["-H", header] }
        if let body { arguments += ["--data-binary", body] }
        let result = try await BuiltExecutable.run(arguments, program: URL(fileURLWithPath: "/usr/bin/env"))
        guard result.status == 0, let split = result.stdout.range(of: "\r\n\r\n") else {
            throw CurlFailed(description: "curl \(method) \(url): \(result.stderr)")
        }
        let head = result.stdout[..<split.lowerBound].split(separator: "\r\n")
        let status = Int(head.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var fields: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return CurlCall(status: status, headers: fields, body: String(result.stdout[split.upperBound...]))
    }
}

struct CurlFailed: Error, CustomStringConvertible {
    let description: String
}
