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
    /// would win); a key not assigned yet is added at the end. Every other line is kept
    /// byte for byte, with its own line ending (LF or CRLF; a new line ends as the
    /// file's first does), a byte-order mark and a last line without a break included.
    /// An inline comment on a replaced line (`KEY=value # note`) is kept on a line of
    /// its own just above it: systemd reads a `#` after a value as part of the value.
    public static func upserting(_ values: [(key: String, value: String)], into contents: String) -> String {
        var file = EnvironmentFileLines(contents)
        for (key, value) in values {
            var placed = false
            var edited: [EnvironmentFileLines.Line] = []
            for line in file.lines {
                guard let assignment = EnvironmentAssignment(line.text), assignment.key == key else {
                    edited.append(line)
                    continue
                }
                guard !placed else { continue }
                placed = true
                if let comment = assignment.comment {
                    edited.append(.init(text: assignment.indent + comment, ending: file.newline))
                }
                edited.append(.init(text: assignment.prefix + key + "=" + quoted(value), ending: line.ending))
            }
            file.lines = edited
            if !placed { file.append(key + "=" + quoted(value)) }
        }
        return file.text
    }

    /// The value `contents` gives `key` (its last assignment, quotes and an inline
    /// comment removed, as a shell reads it), if any.
    public static func value(of key: String, in contents: String) -> String? {
        EnvironmentFileLines(contents).lines.compactMap { line in
            EnvironmentAssignment(line.text).flatMap { $0.key == key ? $0.value : nil }
        }.last
    }

    /// A value as the file holds it: bare when it needs no quotes (a secret, a URL),
    /// else in double quotes with `\`, `"`, `$` and `` ` `` escaped.
    static func quoted(_ value: String) -> String {
        let bare = value.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && scalar.value > 0x20 && !"\"'\\$`#;&|<>()".unicodeScalars.contains(scalar)
        }
        if bare && !value.isEmpty { return value }
        // By Unicode scalar, as a shell reads it: a `"` with a combining mark after it
        // is one `Character`, and still a quote to the shell.
        var escaped = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            if "\\\"$`".unicodeScalars.contains(scalar) { escaped.append("\\") }
            escaped.append(scalar == "\n" || scalar == "\r" ? " " : scalar)
        }
        return "\"" + String(escaped) + "\""
    }
}
