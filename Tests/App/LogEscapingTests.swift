import Foundation
import Logging
import NIOConcurrencyHelpers
import PushgateCore
import PushgateServer
import Testing

/// What a client sends may reach a log line; nothing in it may act on the terminal
/// reading the log.
@Suite("Logs: nothing invisible written raw")
struct LogEscapingTests {
    static let hostile = "see \u{202E}gpj.exe\u{2028}and\u{85}\u{7F}\u{1B}[2J"

    @Test("JSON lines: the same text, its invisible characters as \\u escapes")
    func jsonLines() throws {
        let lines = NIOLockedValueBox<[String]>([])
        var logger = Logger(label: "test") { label in
            JSONLogHandler(label: label) { line in lines.withLockedValue { $0.append(line) } }
        }
        logger.logLevel = .info
        logger.info("push \(Self.hostile)", metadata: ["title": "\(Self.hostile)"])
        let line = try #require(lines.withLockedValue { $0.first })
        #expect(line.hasSuffix("\n") && line.dropLast().allSatisfy { $0 != "\n" })
        #expect(!line.unicodeScalars.contains { InvisibleCharacters.contains($0) && $0 != "\n" }, "\(line)")
        #expect(line.contains(#"\u202e"#) && line.contains(#"\u2028"#) && line.contains(#"\u0085"#))
        let object = try #require(try JSONValue.parse(Array(line.utf8)).objectValue)
        #expect(object["title"]?.stringValue == Self.hostile, "the JSON still says exactly what was sent")
        #expect(object["message"]?.stringValue == "push \(Self.hostile)")
    }

    @Test("text lines: each invisible character written as \\u{…}, one line per event")
    func textEscapes() {
        let escaped = InvisibleCharacters.escaped(Self.hostile)
        #expect(escaped == #"see \u{202e}gpj.exe\u{2028}and\u{85}\u{7f}\u{1b}[2J"#)
        #expect(InvisibleCharacters.escaped("plain é 😀") == "plain é 😀")
    }
}
