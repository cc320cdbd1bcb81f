import PushgateCore
import Testing

@Suite("Reply notification title and body")
struct ReplyNotificationComposerTests {
    @Test(
        "title: display name, else the last component of cwd, else Reply ready",
        arguments: [
            ("My Agent", "/root/projects/my-agent", "My Agent"),
            (nil, "/root/projects/my-agent", "my-agent"),
            ("", "/root/projects/my-agent", "my-agent"),
            (nil, "/root/projects/my-agent/", "my-agent"),
            (nil, "/root/projects/my-agent//", "my-agent"),
            (nil, "relative", "relative"),
            (nil, "/", "Reply ready"),
            (nil, "///", "Reply ready"),
        ] as [(String?, String, String)]
    )
    func title(displayName: String?, cwd: String, expected: String) {
        #expect(ReplyNotificationComposer.title(displayName: displayName, cwd: cwd) == expected)
    }

    @Test(
        "body: white space folded and trimmed, Reply ready when empty",
        arguments: [
            (nil, "Reply ready"),
            ("", "Reply ready"),
            (" \n\t ", "Reply ready"),
            ("Done.", "Done."),
            ("  Fixed   the\n\nbug\tin  main.swift  ", "Fixed the bug in main.swift"),
            ("line one\r\nline two", "line one line two"),
            ("no\u{00A0}break", "no break"),
        ] as [(String?, String)]
    )
    func body(preview: String?, expected: String) {
        #expect(ReplyNotificationComposer.body(preview: preview) == expected)
    }

    @Test("a preview of exactly 240 characters is kept whole")
    func exactLimit() {
        let text = String(repeating: "a", count: 240)
        #expect(ReplyNotificationComposer.body(preview: text) == text)
    }

    @Test("a longer preview is cut to 239 characters and an ellipsis: 240 in all")
    func cut() {
        let body = ReplyNotificationComposer.body(preview: String(repeating: "a", count: 241))
        #expect(body == String(repeating: "a", count: 239) + "…")
        #expect(body.count == ReplyPreview.maxCharacters)
    }

    @Test("the cut never splits an emoji made of several scalars")
    func cutInsideEmoji() {
        let family = "👨‍👩‍👧‍👦"  // 7 scalars, 1 character
        let flag = "🇫🇷"
        let preview = String(repeating: "x", count: 238) + family + flag + "tail"
        let body = ReplyNotificationComposer.body(preview: preview)
        #expect(body == String(repeating: "x", count: 238) + family + "…")
        #expect(body.count == 240)
    }

    @Test("the cut keeps a letter with its combining marks")
    func cutInsideCombiningMarks() {
        let accented = "e\u{301}\u{323}"  // e + acute + dot below: one character
        let preview = String(repeating: "y", count: 238) + accented + "zzz"
        let body = ReplyNotificationComposer.body(preview: preview)
        #expect(body.unicodeScalars.suffix(4).map(\.value) == [0x65, 0x301, 0x323, 0x2026])
    }

    @Test("a cut just after a word leaves no space before the ellipsis")
    func cutAtSpace() {
        let preview = String(repeating: "w", count: 238) + " next words"
        #expect(ReplyNotificationComposer.body(preview: preview) == String(repeating: "w", count: 238) + "…")
    }

    @Test(
        "the app's UI blocks are removed: either fence name, any case, inline, unclosed to the end",
        arguments: [
            ("Done.\n```codeagents-ui\n{\"card\": 1}\n```\nBye.", "Done. Bye."),
            ("Done. ```CodeAgents_UI {\"card\": 1}``` Bye.", "Done. Bye."),
            ("a```codeagents-ui x```b```codeagents_ui y```c", "abc"),
            ("Done.\n```codeagents-ui\n{\"card\": 1}", "Done."),
            ("```codeagents-ui only```", nil),
            ("```swift\nlet x = 1\n``` stays", "```swift let x = 1 ``` stays"),
            ("```codeagents-uix still a UI block``` after", "after"),
        ] as [(String, String?)]
    )
    func uiBlocks(text: String, expected: String?) {
        #expect(ReplyPreview.sanitized(text) == expected)
    }

    @Test(
        "a mark left after a line break does not make a white-space character with the space that replaces the break",
        arguments: ["a\u{2029}\u{200D}b", "x\n\u{301}\u{301}y"])
    func markAfterBreak(text: String) throws {
        let preview = try #require(ReplyPreview.sanitized(text))
        #expect(!preview.contains { $0.isWhitespace && $0 != " " })
        #expect(preview.unicodeScalars.filter { $0 == " " }.count == 1)
    }
}
