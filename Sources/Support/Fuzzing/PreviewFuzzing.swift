import PushgateCore

/// One input of the preview fuzzer: the bytes as a reply's text (decoded as UTF-8,
/// repairing what is not), through ``ReplyPreview/sanitized(_:)``. What must hold: a
/// preview is absent or 1–240 characters, trimmed, with no line break, tab or run
/// of spaces; cutting never splits a character (the result is valid text by
/// construction, and no longer than the input's characters).
public enum PreviewFuzzing {
    public static func check(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let preview = ReplyPreview.sanitized(text) else { return }
        require(!preview.isEmpty && preview.count <= ReplyPreview.maxCharacters, "a preview of \(preview.count)")
        require(preview.first?.isWhitespace == false && preview.last?.isWhitespace == false, "an untrimmed preview")
        require(!preview.contains("  "), "a run of spaces")
        require(!preview.contains { $0.isWhitespace && $0 != " " }, "white space other than a space")
        require(preview.count <= text.count + 1, "a preview longer than its text")
    }
}
