/// Compact JSON text written straight from a ``JSONValue`` as UTF-8 bytes, the same
/// bytes as Foundation's `JSONEncoder` with sorted keys and unescaped slashes (a
/// test compares the two): `JSONEncoder` went through `Codable`, a twentieth of a
/// registration's CPU for the three documents it stores.
public enum JSONWriter {
    /// Thrown for a number JSON cannot hold (infinity, NaN), as `JSONEncoder` does.
    public struct NonFiniteNumber: Error, Sendable {}

    package static func append(_ value: JSONValue, to bytes: inout [UInt8]) throws(NonFiniteNumber) {
        switch value {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let flag): bytes.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let number): try append(number, to: &bytes)
        case .string(let text): appendQuoted(text, to: &bytes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                try append(element, to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let fields):
            bytes.append(UInt8(ascii: "{"))
            for (index, (key, value)) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                appendQuoted(key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                try append(value, to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Swift's shortest text for the number, without a trailing `.0` (`1`, `0.1`, `1e+21`).
    private static func append(_ number: Double, to bytes: inout [UInt8]) throws(NonFiniteNumber) {
        guard number.isFinite else { throw NonFiniteNumber() }
        let text = number.description
        bytes.append(contentsOf: text.hasSuffix(".0") ? text.utf8.dropLast(2) : text.utf8[...])
    }

    /// A string in quotes: each copied whole unless it holds a quote, a backslash or
    /// a control character (every byte of a multi-byte character is 0x80 or above).
    public static func appendQuoted(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        let utf8 = string.utf8
        if utf8.contains(where: needsEscape) {
            for byte in utf8 { appendEscaped(byte, to: &bytes) }
        } else {
            bytes.append(contentsOf: utf8)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private static func appendEscaped(_ byte: UInt8, to bytes: inout [UInt8]) {
        let shorthand: UInt8? =
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): byte
            case 0x08: UInt8(ascii: "b")
            case 0x0C: UInt8(ascii: "f")
            case UInt8(ascii: "\n"): UInt8(ascii: "n")
            case UInt8(ascii: "\r"): UInt8(ascii: "r")
            case UInt8(ascii: "\t"): UInt8(ascii: "t")
            default: nil
            }
        if let shorthand {
            bytes += [UInt8(ascii: "\\"), shorthand]
        } else if byte < 0x20 {
            let digits = Array("0123456789abcdef".utf8)
            bytes += Array("\\u00".utf8) + [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]
        } else {
            bytes.append(byte)
        }
    }
}
