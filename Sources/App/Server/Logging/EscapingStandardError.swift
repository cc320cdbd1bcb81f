import Foundation
import NIOConcurrencyHelpers
import PushgateCore

/// Standard error for swift-log's text lines, with whatever is not printable in a
/// line written as `\u{…}` (``InvisibleCharacters``): a control character or a
/// bidirectional override that a client sent reaches the log as text, never as an
/// instruction to the terminal reading it, and a line break it sent cannot start a
/// line of its own. Each line is written whole.
struct EscapingStandardError: TextOutputStream, Sendable {
    private static let lock = NIOLockedValueBox(())

    mutating func write(_ string: String) {
        let line = string.hasSuffix("\n") ? String(string.dropLast()) : string
        let escaped = InvisibleCharacters.escaped(line) + "\n"
        Self.lock.withLockedValue { _ in StandardError.write(escaped) }
    }
}
