import Foundation

/// The text of a reply as a push may show it, by the production gateway's rules:
/// the app's UI blocks removed, white space folded, at most 240 characters.
public enum ReplyPreview {
    /// The longest preview, the ellipsis included.
    public static let maxCharacters = 240
    /// Openings of the fenced blocks the app draws as UI, not text (compared
    /// without regard to case).
    static let uiFences = ["```codeagents-ui", "```codeagents_ui"]
    static let fence = "```"

    /// `text` without its UI blocks (each from its opening fence to the next
    /// ```` ``` ````, or to the end when unclosed), runs of white space folded to one
    /// space, trimmed, and cut to 239 characters and "…" when longer than 240 (spaces
    /// before the ellipsis dropped); `nil` when nothing is left.
    public static func sanitized(_ text: String?) -> String? {
        guard let text else { return nil }
        let folded = foldingWhiteSpace(withoutUIBlocks(text))
        guard !folded.isEmpty else { return nil }
        return folded.count > maxCharacters ? TextCut.cut(folded, toCharacters: maxCharacters - 1) : folded
    }

    /// `text` with each run of white space made one space, trimmed. Folded again
    /// until nothing changes: a mark that followed a line break is a character of
    /// its own there, but it joins the space put in the break's place, and that
    /// space-with-a-mark is white space that is not a space (found by the fuzzer).
    static func foldingWhiteSpace(_ text: String) -> String {
        var folded = text
        while true {
            let next = folded.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            if next == folded { return next }
            folded = next
        }
    }

    /// `text` with every UI block removed, inline ones too.
    static func withoutUIBlocks(_ text: String) -> String {
        var kept = ""
        var rest = text[...]
        while let opening = uiFences.compactMap({ rest.range(of: $0, options: .caseInsensitive) })
            .min(by: { $0.lowerBound < $1.lowerBound })
        {
            kept += rest[..<opening.lowerBound]
            guard let closing = rest[opening.upperBound...].range(of: fence) else { return kept }
            rest = rest[closing.upperBound...]
        }
        return kept + rest
    }
}
