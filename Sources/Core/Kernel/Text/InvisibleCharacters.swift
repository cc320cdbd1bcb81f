/// Characters that are not printable text: C0 and C1 controls and DEL, the
/// bidirectional controls (marks, embeddings, overrides, isolates), and the line and
/// paragraph separators. On a lock screen or a terminal they reorder or break the
/// text around them (a right-to-left override turns `gpj.exe` into `exe.jpg`), so
/// they never reach either raw.
public enum InvisibleCharacters {
    /// Whether `scalar` is one of them.
    public static func contains(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true  // C0, DEL, C1
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // bidirectional controls
        case 0x2028, 0x2029: true  // line and paragraph separators
        default: false
        }
    }

    /// The first of them in `text` that `allowed` does not let through, if any.
    public static func first(in text: String, allowing allowed: Set<Unicode.Scalar> = []) -> Unicode.Scalar? {
        text.unicodeScalars.first { contains($0) && !allowed.contains($0) }
    }

    /// `text` with each of them written as `\u{…}`, for a log line: what a client
    /// sent is shown, and obeyed by no terminal.
    public static func escaped(_ text: String) -> String {
        guard first(in: text) != nil else { return text }
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if contains(scalar) {
                escaped.append(contentsOf: "\\u{\(String(scalar.value, radix: 16))}".unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    /// `text` as a push may show it: separators as line breaks (or spaces when
    /// `multiline` is off), tabs and line breaks kept only when `multiline`, every
    /// other one of them removed.
    public static func shown(_ text: String, multiline: Bool) -> String {
        guard first(in: text) != nil else { return text }
        var shown = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x2028, 0x2029, 0x0A, 0x85: shown.append(multiline ? "\n" : " ")
            case 0x0D: if !multiline { shown.append(" ") }  // a CRLF's line break is its LF
            case 0x09: shown.append(multiline ? "\t" : " ")
            default: if !contains(scalar) { shown.append(scalar) }
            }
        }
        return String(shown)
    }
}
