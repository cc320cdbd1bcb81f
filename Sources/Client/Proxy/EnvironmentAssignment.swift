/// One line of an env file that assigns a variable: `KEY=value`, with leading blanks
/// and `export ` before it or not, read as a POSIX shell reads it (systemd's
/// `EnvironmentFile=` agrees on every value ``ProxyEnvironmentFile`` writes).
struct EnvironmentAssignment {
    /// The line's leading blanks.
    let indent: String
    /// What stands before the key: the blanks and `export `, if any.
    let prefix: String
    let key: String
    /// The value: quotes removed, an inline comment not part of it.
    let value: String
    /// A `# …` after the value (after a blank, or after its closing quote), if any.
    let comment: String?

    init?(_ line: String) {
        var text = Substring(line)
        let leading = text.prefix { $0 == " " || $0 == "\t" }
        text = text.dropFirst(leading.count)
        indent = String(leading)
        var prefix = indent
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
        (value, comment) = Self.valueAndComment(text[text.index(after: equals)...])
    }

    /// A value as written, and the comment after it. Read by Unicode scalar, as a
    /// shell reads bytes: a quote with a combining mark after it is still a quote.
    private static func valueAndComment(_ written: Substring) -> (String, String?) {
        var scalars = Array(written.unicodeScalars)
        while let last = scalars.last, last == " " || last == "\t" || last == "\r" { scalars.removeLast() }
        if let quote = scalars.first, quote == "\"" || quote == "'" {
            return quotedValue(scalars, quote: quote) ?? (text(scalars[...]), nil)
        }
        // Bare: a `#` after a blank starts a comment (`KEY=a#b` is the value `a#b`).
        for index in scalars.indices.dropFirst() where scalars[index] == "#" {
            let before = scalars[index - 1]
            guard before == " " || before == "\t" else { continue }
            var value = scalars[..<index]
            while let last = value.last, last == " " || last == "\t" { value = value.dropLast() }
            return (text(value), text(scalars[index...]))
        }
        return (text(scalars[...]), nil)
    }

    /// A value in quotes, with nothing after the closing one but blanks and a comment;
    /// `nil` for anything else (read as written). In double quotes a backslash escapes
    /// `\`, `"`, `$` and `` ` `` (and stays before any other character).
    private static func quotedValue(_ scalars: [Unicode.Scalar], quote: Unicode.Scalar) -> (String, String?)? {
        var value = String.UnicodeScalarView()
        var escaping = false
        for (index, scalar) in scalars.enumerated().dropFirst() {
            if escaping {
                if !"\\\"$`".unicodeScalars.contains(scalar) { value.append("\\") }
                value.append(scalar)
                escaping = false
            } else if quote == "\"" && scalar == "\\" {
                escaping = true
            } else if scalar == quote {
                let rest = scalars[(index + 1)...].drop { $0 == " " || $0 == "\t" }
                if rest.isEmpty { return (String(value), nil) }
                return rest.first == "#" ? (String(value), text(rest)) : nil
            } else {
                value.append(scalar)
            }
        }
        return nil
    }

    private static func text(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        String(String.UnicodeScalarView(scalars))
    }
}
