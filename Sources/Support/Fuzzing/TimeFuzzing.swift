import Foundation
import PushgateCore

/// One input of the time fuzzer: the bytes as text (decoded as UTF-8, repairing what
/// is not) read as an RFC 3339 time and written back. What must hold: nothing traps;
/// a time read lies within 0001-01-01T00:00:00Z … 9999-12-31T23:59:59.999Z; what is
/// written has the one form `YYYY-MM-DDTHH:MM:SS.mmmZ` and reads back as the same
/// millisecond; and writing any instant, the input's bytes taken as one, cannot trap.
public enum TimeFuzzing {
    public static func check(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let date = RFC3339.parse(text) {
            require(date >= RFC3339.earliest && date <= RFC3339.latest, "\(text) read as \(date.timeIntervalSince1970)")
            let written = RFC3339.format(date)
            require(written.utf8.count == 24 && written.hasSuffix("Z"), "\(text) written as \(written)")
            guard let again = RFC3339.parse(written) else { return require(false, "\(written) does not read back") }
            require(
                abs(again.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.0006,
                "\(text) → \(written) → \(again.timeIntervalSince1970)")
        }
        // Any bit pattern as an instant (NaN, infinities, the largest magnitudes).
        if bytes.count >= 8 {
            let bits = bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let written = RFC3339.format(Date(timeIntervalSince1970: Double(bitPattern: bits)))
            require(RFC3339.parse(written) != nil, "an instant written as \(written) does not read back")
        }
    }
}
