import Foundation

/// A JSON value: what request bodies are parsed into and what document fields hold.
///
/// Numbers are kept as `Double`; the documents and requests of Pushgate carry no
/// integers beyond 2^53.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The string inside, or `nil` for every other kind.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The elements inside, or `nil` for every other kind.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The object inside, or `nil` for every other kind.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The JSON name of this value's kind, for error messages.
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements) { _, last in last })
    }
}

extension JSONValue {
    /// How deep arrays and objects may nest in parsed text (Foundation's limit too).
    public static let maxDepth = JSONParser.maxDepth

    /// Parses UTF-8 JSON text. Invalid UTF-8 and invalid JSON are told apart, so a
    /// caller can say which one it was.
    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        let parsed = bytes.withContiguousStorageIfAvailable { (text) -> Result<JSONValue, JSONParseError> in
            Result { () throws(JSONParseError) in try JSONParser.parse(text) }
        }
        if let parsed { return try parsed.get() }
        return try Array(bytes).withUnsafeBufferPointer { (text) throws(JSONParseError) in try JSONParser.parse(text) }
    }

    /// The fields named in `names` of the object that UTF-8 JSON `text` holds, or
    /// `nil` when it holds another value. The text is checked whole, as by
    /// ``parse(_:)``; the values of the other fields are not built.
    public static func parseFields(of text: UnsafeBufferPointer<UInt8>, named names: [String])
        throws(JSONParseError) -> [String: JSONValue]?
    {
        try JSONParser.parseFields(text, named: names)
    }

    /// Compact JSON text with sorted keys: the same value always gives the same bytes.
    /// Throws only for a number that JSON cannot hold (infinity, NaN).
    public func encodedData() throws -> Data {
        Data(try encodedBytes())
    }

    /// ``encodedData()`` as bytes.
    public func encodedBytes() throws(JSONWriter.NonFiniteNumber) -> [UInt8] {
        var bytes: [UInt8] = []
        try JSONWriter.append(self, to: &bytes)
        return bytes
    }
}

/// Why bytes could not be parsed as JSON.
public enum JSONParseError: Error, Sendable, Equatable {
    case invalidUTF8
    case invalidJSON
}
