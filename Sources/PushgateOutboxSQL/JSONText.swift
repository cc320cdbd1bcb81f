/// JSON arrays of strings written straight to text, for the outboxes' row arguments
/// (SQLite's `json_each(?)`, PostgreSQL's `jsonb_array_elements($1)`).
///
/// Foundation's `JSONEncoder` took a twentieth of a 100,000-device fan-out to encode
/// the outbox rows; strings need only quotes, backslashes and control characters
/// escaped.
public enum JSONText {
    /// `["a","b"]`
    public static func array(_ strings: [String]) -> String {
        var text = "["
        for (index, string) in strings.enumerated() {
            if index > 0 { text += "," }
            appendQuoted(string, to: &text)
        }
        return text + "]"
    }

    /// `[["a","b"],["c","d"]]`
    public static func array(_ rows: [[String]]) -> String {
        var text = "["
        text.reserveCapacity(rows.count * 160)
        for (index, row) in rows.enumerated() {
            if index > 0 { text += "," }
            text += array(row)
        }
        return text + "]"
    }

    private static func appendQuoted(_ string: String, to text: inout String) {
        text += "\""
        let digits = Array("0123456789abcdef")
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case _ where scalar.value < 0x20:
                text += "\\u00" + String(digits[Int(scalar.value >> 4)]) + String(digits[Int(scalar.value & 0xF)])
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
