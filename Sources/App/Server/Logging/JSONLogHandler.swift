import Foundation
import Logging
import NIOConcurrencyHelpers
import PushgateCore

/// swift-log's handler for `PUSHGATE_LOG_FORMAT=json`: one JSON object per line with
/// `time` (RFC 3339, UTC, milliseconds), `level`, `label`, `message`, `source` and
/// every metadata key beside them (the fixed keys win a clash).
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let label: String
    private let write: @Sendable (String) -> Void

    public init(label: String, write: @escaping @Sendable (String) -> Void) {
        self.label = label
        self.write = write
    }

    /// Lines to standard error, whole: concurrent writers never interleave within one.
    public static func standardError(label: String) -> JSONLogHandler {
        JSONLogHandler(label: label) { line in
            standardErrorLock.withLockedValue { _ in
                StandardError.write(line)
            }
        }
    }

    private static let standardErrorLock = NIOLockedValueBox(())

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var object: [String: JSONValue] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
            object[key] = Self.json(value)
        }
        object["time"] = .string(RFC3339.format(Date()))
        object["level"] = .string(event.level.rawValue)
        object["label"] = .string(label)
        object["message"] = .string(event.message.description)
        object["source"] = .string(event.source)
        guard let data = try? JSONValue.object(object).encodedData() else { return }
        write(Self.escapingInvisibles(String(decoding: data, as: UTF8.self)) + "\n")
    }

    /// `json` with the characters that are not printable and that JSON lets through
    /// raw (DEL, C1 and bidirectional controls, line and paragraph separators)
    /// written as a `\u` escape of four hex digits: the same JSON, which no terminal reading the log obeys.
    /// They can only be inside strings, where the escape means the same character.
    static func escapingInvisibles(_ json: String) -> String {
        guard InvisibleCharacters.first(in: json) != nil else { return json }
        var escaped = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            if InvisibleCharacters.contains(scalar) {
                escaped.append(contentsOf: String(format: "\\u%04x", scalar.value).unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    private static func json(_ value: Logger.Metadata.Value) -> JSONValue {
        switch value {
        case .string(let text): .string(text)
        case .stringConvertible(let value): .string(value.description)
        case .array(let items): .array(items.map(json))
        case .dictionary(let entries): .object(entries.mapValues(json))
        }
    }
}
