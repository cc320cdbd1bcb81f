/// Cuts text to a number of whole characters (grapheme clusters), marking the cut.
public enum TextCut {
    /// `text` when it has at most `maxCharacters`; else its first `maxCharacters`
    /// characters (a trailing space dropped) followed by "…".
    public static func cut(_ text: String, toCharacters maxCharacters: Int) -> String {
        guard text.count > maxCharacters else { return text }
        var cut = text.prefix(maxCharacters)
        while cut.last == " " { cut = cut.dropLast() }
        return cut + "…"
    }
}
