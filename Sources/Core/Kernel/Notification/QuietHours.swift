import Foundation

/// The hours a person does not want to be disturbed (issue 75): from a local time to
/// another in an IANA time zone, across midnight when `from` is later than `to`
/// (`22:00` to `07:00`), as a registration's `quiet_hours` gives them. Inside them
/// what can wait (``HoldBack/applies(to:)``) goes out passive or waits for their end
/// (`PUSHGATE_QUIET_HOURS`); approvals and questions break through.
///
/// Local times follow the zone's daylight saving: on the night the clocks go forward
/// an end in the hour that does not exist is the first time after it; on the night
/// they go back the hours last an hour longer, by the clock on the wall.
public struct QuietHours: Sendable, Hashable {
    /// Minutes after local midnight: the first quiet minute, and the first one not.
    public let from: Int
    public let to: Int
    public let timeZone: TimeZone

    /// What a registration's `quiet_hours` holds, or why it does not read.
    public init(from: String, to: String, timeZone identifier: String) throws(QuietHoursError) {
        guard let start = Self.minutes(from) else {
            throw QuietHoursError("'from' must be a time HH:MM, 00:00 to 23:59")
        }
        guard let end = Self.minutes(to) else { throw QuietHoursError("'to' must be a time HH:MM, 00:00 to 23:59") }
        guard start != end else { throw QuietHoursError("'from' and 'to' must differ") }
        guard identifier.utf8.count <= 64, Self.isZoneName(identifier), let zone = TimeZone(identifier: identifier)
        else {
            throw QuietHoursError(
                "'time_zone' must be an IANA time zone such as Europe/Berlin, not '\(InvisibleCharacters.escaped(String(identifier.prefix(64))))'"
            )
        }
        self.from = start
        self.to = end
        self.timeZone = zone
    }

    /// The zones' canonical names, as this system knows them.
    static let knownZones = Set(TimeZone.knownTimeZoneIdentifiers)

    /// Whether `identifier` is a zone's name in the IANA database — a canonical one,
    /// an `Area/Location` (a link such as `US/Eastern`, `Etc/UTC`) or `UTC` — rather
    /// than an offset Foundation also reads (`GMT+2`): the system then says whether
    /// it knows the zone.
    static func isZoneName(_ identifier: String) -> Bool {
        knownZones.contains(identifier) || identifier == "UTC"
            || (identifier.contains("/")
                && identifier.utf8.allSatisfy {
                    (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || (0x30...0x39).contains($0)
                        || [UInt8(ascii: "/"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "+")].contains($0)
                })
    }

    /// As stored on a device document: `{"from", "to", "timeZone"}`.
    public var stored: JSONValue {
        ["from": .string(Self.text(from)), "to": .string(Self.text(to)), "timeZone": .string(timeZone.identifier)]
    }

    /// What a device document holds, `nil` when it holds none that reads.
    public init?(stored: JSONValue?) {
        guard let object = stored?.objectValue, let from = object["from"]?.stringValue,
            let to = object["to"]?.stringValue, let zone = object["timeZone"]?.stringValue,
            let hours = try? QuietHours(from: from, to: to, timeZone: zone)
        else { return nil }
        self = hours
    }

    /// Whether `date` falls inside the hours, by the zone's wall clock.
    public func contains(_ date: Date) -> Bool {
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        let minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        return from < to ? (from..<to).contains(minute) : minute >= from || minute < to
    }

    /// When the hours that hold `date` end: the next `to` on the wall clock after it
    /// (on a night the clocks skip it, the first time after the gap).
    public func end(after date: Date) -> Date {
        calendar.nextDate(
            after: date, matching: DateComponents(hour: to / 60, minute: to % 60), matchingPolicy: .nextTime,
            repeatedTimePolicy: .first, direction: .forward)
            // Every day has a `to` or a time after its gap: a day on at most.
            ?? date.addingTimeInterval(86_400)
    }

    private var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    /// `HH:MM` as minutes after midnight; `nil` for any other text.
    static func minutes(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count == 5, bytes[2] == UInt8(ascii: ":"),
            bytes.enumerated().allSatisfy({
                $0.offset == 2 || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0.element)
            })
        else { return nil }
        let hour = Int(bytes[0] - UInt8(ascii: "0")) * 10 + Int(bytes[1] - UInt8(ascii: "0"))
        let minute = Int(bytes[3] - UInt8(ascii: "0")) * 10 + Int(bytes[4] - UInt8(ascii: "0"))
        guard hour < 24, minute < 60 else { return nil }
        return hour * 60 + minute
    }

    static func text(_ minutes: Int) -> String {
        let hour = minutes / 60
        let minute = minutes % 60
        return (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
    }
}

/// Why a `quiet_hours` does not read: one line naming the member at fault.
public struct QuietHoursError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
