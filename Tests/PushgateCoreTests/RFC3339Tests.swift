import Foundation
import PushgateCore
import Testing

@Suite("RFC 3339")
struct RFC3339Tests {
    @Test(
        "valid timestamps and the instant they name",
        arguments: [
            ("2026-11-22T05:04:32Z", 1_795_323_872.0),
            ("2026-11-22T05:04:32.5Z", 1_795_323_872.5),
            ("2026-11-22t05:04:32z", 1_795_323_872.0),
            ("2026-11-22T07:04:32+02:00", 1_795_323_872.0),
            ("2026-11-22T00:04:32.250-05:00", 1_795_323_872.25),
            ("2024-02-29T00:00:00Z", 1_709_164_800.0),
            ("1970-01-01T00:00:00Z", 0.0),
        ]
    )
    func valid(text: String, seconds: Double) throws {
        let date = try #require(RFC3339.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.001)
    }

    @Test(
        "what is not RFC 3339 is refused",
        arguments: [
            "", "garbage", "2026-11-22", "2026-11-22T05:04:32", "2026-11-22 05:04:32Z",
            "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
            "2026-11-22T24:00:00Z", "2026-11-22T05:60:00Z", "2026-11-22T05:04:32.Z",
            "2026-11-22T05:04:32+0200", "2026-11-22T05:04:32+02", "2026-11-22T05:04:32Zjunk",
            "1763787872",
        ]
    )
    func invalid(text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    @Test("written as UTC with milliseconds (truncated, as Foundation does)")
    func format() {
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1_795_323_872.125)) == "2026-11-22T05:04:32.125Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
    }
}
