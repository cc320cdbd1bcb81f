/// JSON arrays of strings written straight to text, for the outboxes' row arguments
/// (SQLite's `json_each(?)`, PostgreSQL's `jsonb_array_elements($1)`).
///
/// Foundation's `JSONEncoder` took a twentieth of a 100,000-device fan-out to encode
/// the outbox rows; strings need only quotes, backslashes and control characters
/// escaped. The text is built as UTF-8 bytes, each string copied whole when it needs
/// no escape: appending one Unicode scalar at a time to a `String` took a tenth of a
/// fan-out's CPU.
public enum JSONText {
    /// `["a","b"]`
    public static func array(_ strings: [String]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(strings.count * 40)
        append(strings, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `[["a","b"],["c","d"]]`
    public static func array(_ rows: [[String]]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        bytes.reserveCapacity(rows.count * 160)
        for (index, row) in rows.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            append(row, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func append(_ strings: [String], to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "["))
        for (index, string) in strings.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            appendQuoted(string, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    private static func appendQuoted(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        let utf8 = string.utf8
        if utf8.contains(where: needsEscape) {
            for byte in utf8 { appendEscaped(byte, to: &bytes) }
        } else {
            bytes.append(contentsOf: utf8)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Quotes, backslashes and control characters; every byte of a multi-byte
    /// character is 0x80 or above, so the rest is copied as it is.
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private static func appendEscaped(_ byte: UInt8, to bytes: inout [UInt8]) {
        guard needsEscape(byte) else { return bytes.append(byte) }
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), byte]
        default:
            let digits = Array("0123456789abcdef".utf8)
            bytes += Array("\\u00".utf8) + [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]
        }
    }
}
