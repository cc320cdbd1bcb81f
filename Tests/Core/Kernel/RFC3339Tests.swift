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
            // Four-digit years from 1 only, once the offset is applied.
            "0000-01-01T00:00:00+00:01", "0000-06-01T00:00:00Z", "0001-01-01T00:00:00+00:01",
            "9999-12-31T23:59:60Z", "9999-12-31T23:59:59.9999Z", "9999-12-31T23:00:00-01:00",
        ]
    )
    func invalid(text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    @Test("written as UTC to the nearest millisecond")
    func format() {
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1_795_323_872.125)) == "2026-11-22T05:04:32.125Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1_700_000_000_123 / 1000)) == "2023-11-14T22:13:20.123Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 951_782_399.9996)) == "2000-02-29T00:00:00.000Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: -1.5)) == "1969-12-31T23:59:58.500Z")
    }

    @Test(
        "the ends of the range read and write back; no date traps the writer, each is kept within the years 1 to 9999")
    func range() throws {
        let first = try #require(RFC3339.parse("0001-01-01T00:00:00Z"))
        let last = try #require(RFC3339.parse("9999-12-31T23:59:59.999Z"))
        #expect(try #require(RFC3339.parse("0001-01-01T00:00:00-00:01")) > first)
        #expect(RFC3339.format(first) == "0001-01-01T00:00:00.000Z" && first == RFC3339.earliest)
        #expect(RFC3339.format(last) == "9999-12-31T23:59:59.999Z")
        let extremes = [
            Date.distantPast, Date(timeIntervalSince1970: 253_402_300_800), Date(timeIntervalSince1970: -1e300),
            Date(timeIntervalSince1970: 1e300),
            Date(timeIntervalSince1970: .infinity), Date(timeIntervalSince1970: -.infinity),
            Date(timeIntervalSince1970: .nan), Date(timeIntervalSince1970: -62_135_596_800.0004),
        ]
        for date in extremes {
            let text = RFC3339.format(date)
            #expect(
                text == "0001-01-01T00:00:00.000Z" || text == "9999-12-31T23:59:59.999Z", "\(date) wrote \(text)")
            #expect(RFC3339.parse(text) != nil, "\(text) reads back")
        }
    }

    @Test("what is written reads back as the same millisecond, 1820 to 2370")
    func formatRoundTrips() throws {
        let foundation = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
        for day in stride(from: -150 * 366, through: 400 * 366, by: 97) {
            let milliseconds = Int64(day) * 86_400_000 + Int64(day &* 7_919) % 86_400_000
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let text = RFC3339.format(date)
            let parsed = try #require(RFC3339.parse(text))
            #expect(Int64((parsed.timeIntervalSince1970 * 1000).rounded()) == milliseconds, "\(text)")
            let wholeSecond = Date(timeIntervalSince1970: Double(milliseconds / 1000))
            #expect(
                RFC3339.format(wholeSecond) == wholeSecond.formatted(foundation),
                "the calendar Foundation has (Gregorian since 1582)")
        }
    }
}
