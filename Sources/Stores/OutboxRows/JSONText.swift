import PushgateCore

/// JSON arrays of strings written straight to text, for the outboxes' row arguments
/// (SQLite's `json_each(?)`, PostgreSQL's `jsonb_array_elements($1)`).
///
/// Foundation's `JSONEncoder` took a twentieth of a 100,000-device fan-out to encode
/// the outbox rows. The text is built as UTF-8 bytes (``JSONWriter``), each string
/// copied whole when it needs no escape: appending one Unicode scalar at a time to a
/// `String` took a tenth of a fan-out's CPU.
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
            JSONWriter.appendQuoted(string, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}
