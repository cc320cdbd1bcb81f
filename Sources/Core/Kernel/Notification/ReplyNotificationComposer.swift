/// The title and body rules of a reply-finished notification.
public enum ReplyNotificationComposer {
    /// Shown when there is nothing better: no name, no usable `cwd`, no preview.
    public static let fallbackText = "Reply ready"

    /// The agent's display name; else the last component of `cwd` (trailing `/`
    /// ignored); else "Reply ready".
    public static func title(displayName: String?, cwd: String) -> String {
        if let displayName, !displayName.isEmpty { return displayName }
        var path = Substring(cwd)
        while path.hasSuffix("/") { path = path.dropLast() }
        guard let lastComponent = path.split(separator: "/").last else { return fallbackText }
        return String(lastComponent)
    }

    /// The preview as ``ReplyPreview`` sanitises it (at most 240 characters, the
    /// ellipsis included); "Reply ready" when nothing is left.
    public static func body(preview: String?) -> String {
        ReplyPreview.sanitized(preview) ?? fallbackText
    }
}
