/// The agent server's env file (the seed's `/etc/claude-proxy.env`, read by systemd's
/// `EnvironmentFile=` and by shells), edited as the seed asks: the push settings set,
/// every other line, comment and blank line kept, in its order.
public enum ProxyEnvironmentFile {
    /// The server's push secret.
    public static let secretKey = "CODEAGENTS_PUSH_SECRET"
    /// The gateway the agent side calls.
    public static let gatewayURLKey = "CODEAGENTS_PUSH_GATEWAY_BASE_URL"

    /// `contents` with each of `values` set. The first assignment of a key (`KEY=…` or
    /// `export KEY=…`) is replaced where it stands and any later one removed (the last
    /// would win); a key not assigned yet is added at the end.
    public static func upserting(_ values: [(key: String, value: String)], into contents: String) -> String {
        var lines =
            contents.isEmpty ? [] : contents.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // The text after the last line break is an empty "line": kept as the ending.
        let endsWithBreak = contents.hasSuffix("\n")
        if endsWithBreak { lines.removeLast() }
        for (key, value) in values {
            var placed = false
            lines = lines.compactMap { line in
                guard let assignment = Assignment(line), assignment.key == key else { return line }
                guard !placed else { return nil }
                placed = true
                return assignment.prefix + key + "=" + quoted(value) + (line.hasSuffix("\r") ? "\r" : "")
            }
            if !placed { lines.append(key + "=" + quoted(value)) }
        }
        return lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n")
    }

    /// The value `contents` gives `key` (its last assignment, quotes removed), if any.
    public static func value(of key: String, in contents: String) -> String? {
        var found: String?
        for line in contents.split(whereSeparator: \.isNewline) {
            guard let assignment = Assignment(String(line)), assignment.key == key else { continue }
            found = unquoted(assignment.value)
        }
        return found
    }

    /// A line's `KEY=value`, with an `export ` before it or not.
    struct Assignment {
        let prefix: String
        let key: String
        let value: String

        init?(_ line: String) {
            var text = Substring(line)
            let leading = text.prefix { $0 == " " || $0 == "\t" }
            text = text.dropFirst(leading.count)
            var prefix = String(leading)
            if text.hasPrefix("export ") {
                prefix += "export "
                text = text.dropFirst("export ".count).drop { $0 == " " }
            }
            guard let equals = text.firstIndex(of: "=") else { return nil }
            let key = text[..<equals]
            guard !key.isEmpty, !key.hasPrefix("#"), key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                return nil
            }
            self.prefix = prefix
            self.key = String(key)
            self.value = String(text[text.index(after: equals)...]).trimmingTrailingWhitespace()
        }
    }

    /// A value as the file holds it: bare when it needs no quotes (a secret, a URL),
    /// else in double quotes with `\`, `"`, `$` and `` ` `` escaped.
    static func quoted(_ value: String) -> String {
        let bare = value.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && scalar.value > 0x20 && !"\"'\\$`#;&|<>()".unicodeScalars.contains(scalar)
        }
        if bare && !value.isEmpty { return value }
        var escaped = ""
        for character in value {
            if "\\\"$`".contains(character) { escaped.append("\\") }
            escaped.append(character == "\n" ? " " : character)
        }
        return "\"" + escaped + "\""
    }

    static func unquoted(_ value: String) -> String {
        if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
            let inner = value.dropFirst().dropLast()
            guard first == "\"" else { return String(inner) }
            var text = ""
            var escaping = false
            for character in inner {
                if escaping || character != "\\" {
                    text.append(character)
                    escaping = false
                } else {
                    escaping = true
                }
            }
            return text
        }
        return value
    }
}

extension String {
    fileprivate func trimmingTrailingWhitespace() -> String {
        var text = Substring(self)
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text = text.dropLast() }
        return String(text)
    }
}
