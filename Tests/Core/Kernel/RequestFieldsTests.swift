import Foundation
import PushgateCore
import Testing

@Suite("Request fields")
struct RequestFieldsTests {
    let now = Date(timeIntervalSince1970: 1_795_323_872)

    func fields(_ json: String) throws(FunctionError) -> RequestFields {
        try RequestFields(body: Array(json.utf8), receivedAt: now)
    }

    @Test(
        "a key twice in one object is refused, escapes read, at any depth",
        arguments: [
            #"{"cwd": "/a", "cwd": "/b"}"#, #"{"cwd": "/a", "c\u0077d": "/b"}"#,
            #"{"data": {"k": "1", "k": "2"}}"#, #"{"a": [{"x": 1, "x": 2}]}"#,
        ])
    func duplicateKeys(json: String) {
        #expect(throws: FunctionError.self) { try fields(json) }
    }

    @Test(
        "the same key in different objects, or a key's text as a value, is fine",
        arguments: [
            #"{"a": {"k": 1}, "b": {"k": 2}}"#, #"{"k": "k", "v": ["k", "k"]}"#,
            #"{"a": [{"k": 1}, {"k": 2}], "k": "\"k\""}"#, #"{"s": "{\"k\": 1, \"k\": 2}"}"#,
        ])
    func distinctKeys(json: String) throws {
        _ = try fields(json)
        #expect(DuplicateKeyScan.firstDuplicate(in: Array(json.utf8)) == nil)
    }

    @Test("text refuses C0 controls; multiline text allows tabs and line breaks only")
    func controls() throws {
        let body = try fields(#"{"a": "x\u0000", "b": "x\ty\nz\r", "c": "x\u001b", "d": "é😀\u007f"}"#)
        #expect(throws: FunctionError.invalidArgument("'a' must not contain NUL characters", field: "a")) {
            try body.optionalString("a", multiline: true)
        }
        #expect(throws: FunctionError.self) { try body.optionalString("b") }
        #expect(try body.optionalString("b", multiline: true) == "x\ty\nz\r")
        #expect(throws: FunctionError.self) { try body.optionalString("c", multiline: true) }
        #expect(throws: FunctionError.self, "DEL is a control character too") { try body.optionalString("d") }
        let map = try fields(#"{"m": {"k\n": "v"}, "n": {"k": "v\nw"}, "o": {"k": "v\u0001"}}"#)
        #expect(throws: FunctionError.self) { try map.optionalObject("m", multiline: true) }
        #expect(try map.optionalObject("n", multiline: true) == ["k": "v\nw"])
        #expect(throws: FunctionError.self) { try map.optionalObject("o", multiline: true) }
    }

    @Test(
        "C1 controls are refused everywhere; bidirectional controls and line separators in one-line text only",
        arguments: [
            "\u{85}x", "a\u{9B}b", "\u{202E}gpj.exe", "a\u{2066}b\u{2069}", "a\u{200F}", "a\u{2028}b", "\u{61C}",
        ])
    func invisibles(text: String) throws {
        let body = RequestFields(["t": .string(text)], receivedAt: now)
        #expect(throws: FunctionError.self, "\(text.unicodeScalars.map(\.value))") { try body.optionalString("t") }
        let isC1 = text.unicodeScalars.contains { (0x80...0x9F).contains($0.value) && $0.value != 0x85 }
        if isC1 {
            #expect(throws: FunctionError.self) { try body.optionalString("t", multiline: true) }
        } else {
            #expect(try body.optionalString("t", multiline: true) == text, "an agent's own text keeps its push")
        }
    }

    @Test("a time at most 5 minutes ahead of the gateway's clock is taken, one further ahead is refused")
    func futureTimes() throws {
        let body = try fields(
            #"{"past": "2020-01-01T00:00:00Z", "soon": "2026-11-22T05:09:32Z", "later": "2026-11-22T05:09:33Z", "bad": "tomorrow"}"#
        )
        #expect(try body.optionalTimestamp("past") != nil)
        #expect(try body.optionalTimestamp("soon") == now + 300)
        #expect(throws: FunctionError.self) { try body.optionalTimestamp("later") }
        #expect(throws: FunctionError.self) { try body.optionalTimestamp("bad") }
        #expect(try body.optionalTimestamp("absent") == nil)
    }

    @Test(
        "an FCM token: 1 to 4096 characters without white space, ASCII or not",
        arguments: [
            ("c1:APA91b" + String(repeating: "x", count: 140), true), (String(repeating: "é", count: 4096), true),
            (String(repeating: "x", count: 4096), true), (String(repeating: "x", count: 4097), false), ("", false),
            ("a b", false), ("a\tb", false), ("a\r\nb", false), ("a\u{0B}b", false), ("é\u{00A0}é", false),
            ("a\u{2003}b", false),
        ])
    func fcmToken(token: String, valid: Bool) {
        #expect((try? FieldRules.token(token, field: "fcm_token")) == (valid ? token : nil))
    }
}
