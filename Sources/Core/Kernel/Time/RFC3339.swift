import Foundation

/// RFC 3339 timestamps: written as UTC with milliseconds
/// (`2026-11-22T05:04:32.123Z`), read strictly, and only with four-digit years:
/// 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z.
public enum RFC3339 {
    /// The earliest time read or written, in milliseconds since 1970: 0001-01-01T00:00:00Z.
    public static let earliestMilliseconds: Int64 = -62_135_596_800_000
    /// The latest, 9999-12-31T23:59:59.999Z.
    public static let latestMilliseconds: Int64 = 253_402_300_799_999

    /// The earliest time read or written.
    public static let earliest = Date(timeIntervalSince1970: Double(earliestMilliseconds) / 1000)
    /// The latest time read or written.
    public static let latest = Date(timeIntervalSince1970: Double(latestMilliseconds) / 1000)

    /// `date` as `YYYY-MM-DDTHH:MM:SS.mmmZ`, to the nearest millisecond: a time read
    /// from milliseconds (`1700000000.123` is stored as `…0.12299999`) is written
    /// as it was read, where Foundation's formatter would cut it to `.122`. A date
    /// outside the years 1 to 9999 (which no read lets in) is written as the nearest
    /// end of that range, not trapped on.
    public static func format(_ date: Date) -> String {
        let milliseconds = clampedMilliseconds(date.timeIntervalSince1970 * 1000)
        let (days, millisecondOfDay) = floorDivision(milliseconds, 86_400_000)
        let (year, month, day) = civilFromDays(Int(days))
        let second = Int(millisecondOfDay / 1000)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        func append(_ value: Int, digits: Int) {
            var divisor = 1
            for _ in 1..<digits { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        append(year, digits: 4)
        bytes.append(UInt8(ascii: "-"))
        append(month, digits: 2)
        bytes.append(UInt8(ascii: "-"))
        append(day, digits: 2)
        bytes.append(UInt8(ascii: "T"))
        append(second / 3600, digits: 2)
        bytes.append(UInt8(ascii: ":"))
        append(second / 60 % 60, digits: 2)
        bytes.append(UInt8(ascii: ":"))
        append(second % 60, digits: 2)
        bytes.append(UInt8(ascii: "."))
        append(Int(millisecondOfDay % 1000), digits: 3)
        bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `milliseconds` rounded into the range a time may take; NaN as the earliest.
    private static func clampedMilliseconds(_ milliseconds: Double) -> Int64 {
        guard !milliseconds.isNaN else { return earliestMilliseconds }
        let rounded = milliseconds.rounded()
        if rounded <= Double(earliestMilliseconds) { return earliestMilliseconds }
        if rounded >= Double(latestMilliseconds) { return latestMilliseconds }
        return Int64(rounded)
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = (value % divisor + divisor) % divisor
        return ((value - remainder) / divisor, remainder)
    }

    /// Parses `YYYY-MM-DD"T"HH:MM:SS[.fraction](Z|±HH:MM)` (`t`/`z` in lower case
    /// too). Unlike Foundation's parsers it refuses out-of-range parts such as
    /// February 30 or hour 25, which it would otherwise roll over, and a time
    /// outside 0001-01-01T00:00:00Z … 9999-12-31T23:59:59.999Z once its offset is
    /// applied (`0000-01-01T00:00:00+00:01` is not in year 1, nor is year 0).
    public static func parse(_ text: String) -> Date? {
        var scanner = DigitScanner(Array(text.utf8))
        guard let year = scanner.number(digits: 4), scanner.skip("-"),
            let month = scanner.number(digits: 2), scanner.skip("-"),
            let day = scanner.number(digits: 2), scanner.skip("T") || scanner.skip("t"),
            let hour = scanner.number(digits: 2), scanner.skip(":"),
            let minute = scanner.number(digits: 2), scanner.skip(":"),
            let second = scanner.number(digits: 2)
        else { return nil }
        var fraction = 0.0
        if scanner.skip(".") {
            guard let digits = scanner.fractionDigits() else { return nil }
            fraction = digits
        }
        let offsetSeconds: Int
        if scanner.skip("Z") || scanner.skip("z") {
            offsetSeconds = 0
        } else {
            let sign: Int
            if scanner.skip("+") {
                sign = 1
            } else if scanner.skip("-") {
                sign = -1
            } else {
                return nil
            }
            guard let offsetHour = scanner.number(digits: 2), scanner.skip(":"),
                let offsetMinute = scanner.number(digits: 2), offsetHour <= 23, offsetMinute <= 59
            else { return nil }
            offsetSeconds = sign * (offsetHour * 3600 + offsetMinute * 60)
        }
        guard scanner.isAtEnd, (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour <= 23, minute <= 59, second <= 60  // 60: a leap second
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        let time = Double(seconds) + fraction
        guard time * 1000 >= Double(earliestMilliseconds), time * 1000 <= Double(latestMilliseconds) else { return nil }
        return Date(timeIntervalSince1970: time)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's
    /// `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01 (H. Hinnant's `civil_from_days`).
    private static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// Reads fixed-width ASCII numbers and single characters off a byte array.
private struct DigitScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index == bytes.count }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    mutating func number(digits count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[index..<index + count] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        index += count
        return value
    }

    /// One or more digits after a decimal point, as a fraction of a second.
    mutating func fractionDigits() -> Double? {
        var value = 0.0
        var scale = 0.1
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            value += Double(bytes[index] - UInt8(ascii: "0")) * scale
            scale /= 10
            index += 1
        }
        return index > start ? value : nil
    }
}
