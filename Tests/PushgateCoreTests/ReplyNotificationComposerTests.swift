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

    @Test("a preview of exactly 180 characters is kept whole")
    func exactLimit() {
        let text = String(repeating: "a", count: 180)
        #expect(ReplyNotificationComposer.body(preview: text) == text)
    }

    @Test("a longer preview is cut to 180 characters and an ellipsis")
    func cut() {
        let body = ReplyNotificationComposer.body(preview: String(repeating: "a", count: 181))
        #expect(body == String(repeating: "a", count: 180) + "…")
    }

    @Test("the cut never splits an emoji made of several scalars")
    func cutInsideEmoji() {
        let family = "👨‍👩‍👧‍👦"  // 7 scalars, 1 character
        let flag = "🇫🇷"
        let preview = String(repeating: "x", count: 179) + family + flag + "tail"
        let body = ReplyNotificationComposer.body(preview: preview)
        #expect(body == String(repeating: "x", count: 179) + family + "…")
        #expect(body.count == 181)
    }

    @Test("the cut keeps a letter with its combining marks")
    func cutInsideCombiningMarks() {
        let accented = "e\u{301}\u{323}"  // e + acute + dot below: one character
        let preview = String(repeating: "y", count: 179) + accented + "zzz"
        let body = ReplyNotificationComposer.body(preview: preview)
        #expect(body.unicodeScalars.suffix(4).map(\.value) == [0x65, 0x301, 0x323, 0x2026])
    }

    @Test("a cut just after a word leaves no space before the ellipsis")
    func cutAtSpace() {
        let preview = String(repeating: "w", count: 179) + " next words"
        #expect(ReplyNotificationComposer.body(preview: preview) == String(repeating: "w", count: 179) + "…")
    }
}
