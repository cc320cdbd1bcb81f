/// The checks shared by the functions' request fields. Each returns the value to
/// use (possibly normalised) or throws an `INVALID_ARGUMENT` naming the field.
public enum FieldRules {
    /// 1–`maxBytes` UTF-8 bytes, no NUL: the agent's working directory.
    public static func cwd(_ value: String, field: String = "cwd", maxBytes: Int = 1024) throws(FunctionError) -> String
    {
        let count = value.utf8.count
        guard count >= 1 else { throw .invalidArgument("'\(field)' must not be empty", field: field) }
        guard count <= maxBytes else {
            throw .invalidArgument("'\(field)' is \(count) bytes; at most \(maxBytes) are allowed", field: field)
        }
        guard !value.utf8.contains(0) else {
            throw .invalidArgument("'\(field)' must not contain NUL characters", field: field)
        }
        return value
    }

    /// 1–128 printable ASCII characters and a valid document id: no `/`, not `.` or
    /// `..`, not `__…__`.
    public static func installationID(_ value: String, field: String = "installation_id") throws(FunctionError)
        -> String
    {
        let bytes = value.utf8
        guard (1...128).contains(bytes.count) else {
            throw .invalidArgument("'\(field)' must be 1 to 128 characters", field: field)
        }
        guard bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw .invalidArgument("'\(field)' must be printable ASCII", field: field)
        }
        guard !bytes.contains(UInt8(ascii: "/")) else {
            throw .invalidArgument("'\(field)' must not contain '/'", field: field)
        }
        guard DocumentPath.isValidSegment(value) else {
            throw .invalidArgument("'\(field)' must not be '.', '..' or of the form '__…__'", field: field)
        }
        return value
    }

    /// An APNs token as Apple hands it over — a device's, a Live Activity's push-to-start
    /// or per-activity one: an even number (64 to 200) of hex digits, either case;
    /// returned in lower case, as stored.
    public static func hexToken(_ value: String, field: String) throws(FunctionError) -> String {
        let bytes = value.utf8
        guard (64...200).contains(bytes.count), bytes.count.isMultiple(of: 2),
            bytes.allSatisfy(Hex.isDigit)
        else {
            throw .invalidArgument("'\(field)' must be an even number (64 to 200) of hex digits", field: field)
        }
        return value.lowercased()
    }

    /// 1–4096 characters, no white space: an FCM token, and the bound of any token a
    /// caller looks devices up by.
    public static func token(_ value: String, field: String) throws(FunctionError) -> String {
        // Tokens are ASCII: their bytes are their characters, and only these bytes are white space.
        let isASCII = value.utf8.allSatisfy { $0 < 0x80 }
        guard (1...4096).contains(isASCII ? value.utf8.count : value.count) else {
            throw .invalidArgument("'\(field)' must be 1 to 4096 characters", field: field)
        }
        let hasWhiteSpace =
            isASCII
            ? value.utf8.contains { $0 == UInt8(ascii: " ") || (0x09...0x0D).contains($0) }
            : value.contains(where: \.isWhitespace)
        guard !hasWhiteSpace else {
            throw .invalidArgument("'\(field)' must not contain white space", field: field)
        }
        return value
    }

    /// At most `maxCharacters` characters (grapheme clusters).
    public static func text(_ value: String, field: String, maxCharacters: Int) throws(FunctionError) -> String {
        guard value.count <= maxCharacters else {
            throw .invalidArgument("'\(field)' must be at most \(maxCharacters) characters", field: field)
        }
        return value
    }

    /// Refuses control characters (C0, DEL, C1); in a multi-line text tabs and
    /// line breaks (NEL too) are not, nor are the bidirectional controls and line separators
    /// an agent's own text may hold (a push shows it without them:
    /// ``InvisibleCharacters/shown(_:multiline:)``); a one-line text refuses those too.
    public static func printable(_ text: String, field: String, multiline: Bool = false) throws(FunctionError) {
        guard let found = InvisibleCharacters.first(in: text, allowing: multiline ? multilineAllowed : []) else {
            return
        }
        let reason =
            switch found.value {
            case 0: "NUL characters"
            case 0x00...0x1F, 0x7F...0x9F: "control characters" + (multiline ? " other than tabs and line breaks" : "")
            case 0x2028, 0x2029: "line or paragraph separators"
            default: "bidirectional controls (U+\(String(found.value, radix: 16, uppercase: true)))"
            }
        throw .invalidArgument("'\(field)' must not contain \(reason)", field: field)
    }

    /// What a multi-line text may hold of ``InvisibleCharacters``.
    private static let multilineAllowed: Set<Unicode.Scalar> = {
        var allowed: Set<Unicode.Scalar> = ["\t", "\n", "\r", "\u{85}", "\u{2028}", "\u{2029}"]
        for value: UInt32 in [0x061C, 0x200E, 0x200F] + Array(0x202A...0x202E) + Array(0x2066...0x2069) {
            if let scalar = Unicode.Scalar(value) { allowed.insert(scalar) }
        }
        return allowed
    }()

    /// An `Idempotency-Key` header: 1 to 255 visible ASCII characters; prefixed so
    /// that it never equals a key Pushgate derives from a body.
    public static func idempotencyKeyHeader(_ key: String?) throws(FunctionError) -> String? {
        guard let key else { return nil }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw .invalidArgument(
                "the Idempotency-Key header must be 1 to 255 visible ASCII characters",
                field: "Idempotency-Key"
            )
        }
        return "header:" + key
    }
}
