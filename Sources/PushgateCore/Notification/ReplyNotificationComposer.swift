/// The title and body rules of a reply-finished notification.
public enum ReplyNotificationComposer {
    /// Shown when there is nothing better: no name, no usable `cwd`, no preview.
    public static let fallbackText = "Reply ready"
    /// The longest body before the ellipsis, in characters (grapheme clusters).
    public static let maxBodyCharacters = 180

    /// The agent's display name; else the last component of `cwd` (trailing `/`
    /// ignored); else "Reply ready".
    public static func title(displayName: String?, cwd: String) -> String {
        if let displayName, !displayName.isEmpty { return displayName }
        var path = Substring(cwd)
        while path.hasSuffix("/") { path = path.dropLast() }
        guard let lastComponent = path.split(separator: "/").last else { return fallbackText }
        return String(lastComponent)
    }

    /// The preview with runs of white space folded to one space and trimmed, cut to
    /// at most 180 whole characters with "…" added when cut (so at most 181 with the
    /// ellipsis); "Reply ready" when nothing is left.
    public static func body(preview: String?) -> String {
        Self.preview(preview) ?? fallbackText
    }

    /// `text` with white space folded and trimmed, cut to 180 characters; `nil` when
    /// nothing is left.
    public static func preview(_ text: String?) -> String? {
        let folded = (text ?? "").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return folded.isEmpty ? nil : TextCut.cut(folded, toCharacters: maxBodyCharacters)
    }
}
