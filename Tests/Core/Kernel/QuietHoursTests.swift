import Foundation
import PushgateCore
import Testing

/// Quiet hours by the zone's wall clock (issue 75): across midnight, and on the
/// nights daylight saving time starts and ends.
@Suite("Quiet hours: inside or not, and when they end")
struct QuietHoursTests {
    /// `text` (RFC 3339) as a date.
    static func at(_ text: String) throws -> Date { try #require(RFC3339.parse(text)) }

    @Test("22:00 to 07:00 in Berlin: inside across midnight, outside by day; they end at 07:00 local")
    func acrossMidnight() throws {
        let hours = try QuietHours(from: "22:00", to: "07:00", timeZone: "Europe/Berlin")
        // Berlin is UTC+1 in January.
        #expect(hours.contains(try Self.at("2026-01-15T21:00:00Z")), "22:00 local, the first quiet minute")
        #expect(hours.contains(try Self.at("2026-01-15T23:30:00Z")), "00:30 local")
        #expect(hours.contains(try Self.at("2026-01-16T05:59:00Z")), "06:59 local")
        #expect(!hours.contains(try Self.at("2026-01-16T06:00:00Z")), "07:00 local: over")
        #expect(!hours.contains(try Self.at("2026-01-15T20:59:00Z")), "21:59 local")
        #expect(hours.end(after: try Self.at("2026-01-15T23:30:00Z")) == (try Self.at("2026-01-16T06:00:00Z")))
    }

    @Test("13:00 to 14:30: a window within one day")
    func withinADay() throws {
        let hours = try QuietHours(from: "13:00", to: "14:30", timeZone: "UTC")
        #expect(hours.contains(try Self.at("2026-06-01T13:00:00Z")))
        #expect(hours.contains(try Self.at("2026-06-01T14:29:59Z")))
        #expect(!hours.contains(try Self.at("2026-06-01T14:30:00Z")))
        #expect(!hours.contains(try Self.at("2026-06-01T12:59:00Z")))
        #expect(hours.end(after: try Self.at("2026-06-01T13:10:00Z")) == (try Self.at("2026-06-01T14:30:00Z")))
    }

    @Test("the night the clocks go forward: an end in the skipped hour is the first time after it")
    func springForward() throws {
        // 2026-03-29 in Berlin: 02:00 CET becomes 03:00 CEST (01:00 UTC).
        let hours = try QuietHours(from: "01:00", to: "02:30", timeZone: "Europe/Berlin")
        #expect(hours.contains(try Self.at("2026-03-29T00:45:00Z")), "01:45 CET")
        #expect(!hours.contains(try Self.at("2026-03-29T01:00:00Z")), "03:00 CEST: past 02:30 on the wall")
        #expect(hours.end(after: try Self.at("2026-03-29T00:45:00Z")) == (try Self.at("2026-03-29T01:00:00Z")))
        // A night window over the change lasts an hour less by the clock: 22:00 CET to 07:00 CEST.
        let night = try QuietHours(from: "22:00", to: "07:00", timeZone: "Europe/Berlin")
        #expect(night.end(after: try Self.at("2026-03-28T23:00:00Z")) == (try Self.at("2026-03-29T05:00:00Z")))
    }

    @Test("the night the clocks go back: the repeated hour is quiet twice, the end the wall clock's")
    func fallBack() throws {
        // 2026-10-25 in Berlin: 03:00 CEST becomes 02:00 CET (01:00 UTC).
        let hours = try QuietHours(from: "02:00", to: "03:00", timeZone: "Europe/Berlin")
        #expect(hours.contains(try Self.at("2026-10-25T00:30:00Z")), "02:30 CEST")
        #expect(hours.contains(try Self.at("2026-10-25T01:30:00Z")), "02:30 CET, the same hour again")
        #expect(!hours.contains(try Self.at("2026-10-25T02:00:00Z")), "03:00 CET")
        let night = try QuietHours(from: "22:00", to: "07:00", timeZone: "Europe/Berlin")
        #expect(night.end(after: try Self.at("2026-10-24T21:00:00Z")) == (try Self.at("2026-10-25T06:00:00Z")))
    }

    @Test(
        "what does not read is refused, naming the member",
        arguments: [
            ("24:00", "07:00", "UTC", "'from'"), ("22:00", "7:00", "UTC", "'to'"), ("22:00", "22:00", "UTC", "differ"),
            ("22:00", "07:00", "Mars/Olympus", "'time_zone'"), ("22:00", "07:00", "GMT+2", "'time_zone'"),
            ("22:0a", "07:00", "UTC", "'from'"), ("22:00", "07:00", "", "'time_zone'"),
        ])
    func refused(from: String, to: String, zone: String, naming: String) {
        #expect {
            try QuietHours(from: from, to: to, timeZone: zone)
        } throws: { error in
            (error as? QuietHoursError)?.description.contains(naming) == true
        }
    }

    @Test("stored and read back; a stored form that does not read is none")
    func stored() throws {
        let hours = try QuietHours(from: "22:15", to: "06:45", timeZone: "America/New_York")
        #expect(hours.stored == ["from": "22:15", "to": "06:45", "timeZone": "America/New_York"])
        #expect(QuietHours(stored: hours.stored) == hours)
        #expect(QuietHours(stored: ["from": "22:15", "to": "06:45", "timeZone": "Nowhere"]) == nil)
        #expect(QuietHours(stored: "22:00-07:00") == nil)
    }
}
