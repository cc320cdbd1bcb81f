import Foundation
import PushgateCore

/// One input of the JSON fuzzer: ``JSONValue/parse(_:)`` (Pushgate's own parser)
/// against Foundation's `JSONDecoder`, the parser it replaced. Whatever the bytes,
/// both take them and give the same value, or both refuse them for the same reason;
/// but for three quirks of Foundation's (``isKnownDifference(_:_:in:)``).
public enum JSONFuzzing {
    public static func check(_ bytes: [UInt8]) {
        let parsed = Result { () throws(JSONParseError) in try JSONValue.parse(bytes) }
        checkMaskedParse(bytes, against: parsed)
        // Foundation's scanner traps on 513 unclosed brackets (while it places the
        // error): text that might nest that deep is only parsed by Pushgate's.
        guard bytes.count(where: { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "{") }) <= JSONValue.maxDepth
        else { return }
        let expected = referenceParse(bytes)
        guard !isKnownDifference(parsed, expected, in: bytes) else { return }
        require(parsed == expected, "JSONValue.parse gave \(parsed), JSONDecoder \(expected)")
    }

    /// ``JSONValue/parseFields(of:named:)`` (a fan-out page's masked read) takes and
    /// refuses what ``JSONValue/parse(_:)`` does, and keeps the named fields of an
    /// object as it parses them.
    static func checkMaskedParse(_ bytes: [UInt8], against parsed: Result<JSONValue, JSONParseError>) {
        let names = ["a", "apnsToken", "", "\u{e9}"]
        let masked = bytes.withUnsafeBufferPointer { text in
            Result { () throws(JSONParseError) in try JSONValue.parseFields(of: text, named: names) }
        }
        let expected = parsed.map { value in
            value.objectValue.map { fields in fields.filter { names.contains($0.key) } }
        }
        require(masked == expected, "JSONValue.parseFields gave \(masked), parse \(expected)")
    }

    /// Where Pushgate follows RFC 8259 and Foundation does not: a zero written with
    /// an exponent (``foundationRefusesZero(in:)``), and text with a raw NUL byte,
    /// where Foundation may stop as at the end of a C string (`1\0` is taken as 1,
    /// `"\0"` as the empty string); JSON allows a NUL only escaped (`\u0000`). And
    /// a repeated key: both keep the first value, but Foundation never reads the
    /// later one, so a malformed number there (`{"k":1,"k":2.}`) goes unnoticed.
    /// (Requests with a repeated key are refused before either parser is asked.)
    static func isKnownDifference(
        _ parsed: Result<JSONValue, JSONParseError>, _ expected: Result<JSONValue, JSONParseError>,
        in bytes: [UInt8]
    ) -> Bool {
        switch (parsed, expected) {
        case (.success, .failure(.invalidJSON)): foundationRefusesZero(in: bytes)
        case (.failure(.invalidJSON), .success):
            bytes.contains(0) || DuplicateKeyScan.firstDuplicate(in: bytes) != nil
        default: false
        }
    }

    /// Whether the text holds a zero written with an exponent (`0e5`, `0.00e3`),
    /// which RFC 8259 allows and `JSONDecoder` refuses for some exponents (`0e1`,
    /// `0e9`) though not others (`0e10`, `0.0e5`); Pushgate takes them all as 0.
    public static func foundationRefusesZero(in bytes: [UInt8]) -> Bool {
        guard let text = String(validating: bytes, as: UTF8.self) else { return false }
        return text.contains(#/(^|[^0-9.])-?0(\.0+)?[eE]/#)
    }

    /// What `JSONValue.parse` did before it had a parser of its own.
    public static func referenceParse(_ bytes: [UInt8]) -> Result<JSONValue, JSONParseError> {
        guard String(validating: bytes, as: UTF8.self) != nil else { return .failure(.invalidUTF8) }
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) else {
            return .failure(.invalidJSON)
        }
        return .success(value)
    }
}
