import Foundation
import Logging

/// One setting of `pushgate serve`, declared once: its key in the configuration
/// file (from which its environment variable, `PUSHGATE_` + the key in capitals,
/// and its flag, `--` + the key with dashes, follow), its default, its help, and how
/// its text reads as a `Value` (or what it must be instead). The gateway's own are
/// declared in `PushgateServer` (`Settings.swift`), a push service's in its module
/// (`APNsSettings.swift`); the server's catalogue (`AnySetting.all`) lists them all
/// for `serve --help`, `pushgate config`, the file loader and the README table, and
/// its `SettingSources` reads them (``SettingReading``).
public struct Setting<Value: Sendable>: Sendable {
    /// The setting as the catalogue lists it, its value's type aside.
    public let erased: AnySetting
    /// The value a text reads as, or what the text must be instead.
    public let read: @Sendable (String) -> Result<Value, SettingProblem>

    /// `blankIsGiven`: an empty value is a value (an empty escalation schedule is
    /// "no reminders"); else blank counts as not given.
    public init(
        _ key: String, default defaultValue: String? = nil, secret: Bool = false, blankIsGiven: Bool = false,
        _ help: String, read: @escaping @Sendable (String) -> Result<Value, SettingProblem>
    ) {
        erased = AnySetting(
            key: key, defaultValue: defaultValue, help: help, isSecret: secret, blankIsGiven: blankIsGiven,
            check: { text in
                if case .failure(let problem) = read(text) { return problem }
                return nil
            })
        self.read = read
    }

    public var key: String { erased.key }
    public var environmentName: String { erased.environmentName }
    public var flag: String { erased.flag }
    /// The default as the catalogue shows it; `nil`: not set unless given.
    public var defaultText: String? { erased.defaultValue }
}

// The rules the settings' texts are read by: each message as one line.
extension Setting {
    /// Any text.
    public static func text(
        _ key: String, default defaultValue: String? = nil, secret: Bool = false, _ help: String
    ) -> Setting<String> {
        Setting<String>(key, default: defaultValue, secret: secret, help) { .success($0) }
    }

    /// One of the texts `values` reads (any case), `what` naming them.
    public static func choice<Choice>(
        _ key: String, default defaultValue: String? = nil, _ what: String, _ help: String,
        _ values: @escaping @Sendable (String) -> Choice?
    ) -> Setting<Choice> {
        Setting<Choice>(key, default: defaultValue, help) { text in
            values(text.lowercased()).map(Result.success) ?? .failure(.mustBe(what, not: text))
        }
    }

    /// `on` or `off` (YAML's `true` and `false` too: a file's `sealed_only: true`).
    public static func onOff(_ key: String, default defaultValue: String, _ help: String) -> Setting<Bool> {
        choice(key, default: defaultValue, "on or off", help) {
            ["on": true, "off": false, "true": true, "false": false][$0]
        }
    }

    /// A whole number in `range`; `what` as the error says it ("a number from 1 to 64").
    public static func number(
        _ key: String, default defaultValue: String? = nil, in range: ClosedRange<Int>, expected what: String? = nil,
        _ help: String
    ) -> Setting<Int> {
        Setting<Int>(key, default: defaultValue, help) { text in
            guard let number = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(number) else {
                return .failure(.mustBe(what ?? "a number from \(range.lowerBound) to \(range.upperBound)", not: text))
            }
            return .success(number)
        }
    }

    /// A whole number above zero.
    public static func positive(_ key: String, default defaultValue: String, _ help: String) -> Setting<Int> {
        number(key, default: defaultValue, in: 1...Int.max, expected: "a positive whole number", help)
    }

    /// Seconds (a fraction allowed) in `range`.
    public static func seconds(
        _ key: String, default defaultValue: String, in range: ClosedRange<Double>, _ help: String
    ) -> Setting<Duration> {
        Setting<Duration>(key, default: defaultValue, help) { text in
            guard let seconds = Double(text), range.contains(seconds) else {
                return .failure(.mustBe("seconds from \(range.lowerBound) to \(range.upperBound)", not: text))
            }
            return .success(.milliseconds(Int64(seconds * 1000)))
        }
    }

    /// Days in `range`, `0` for never when `range` starts there.
    public static func days(_ key: String, default defaultValue: String, in range: ClosedRange<Int>, _ help: String)
        -> Setting<Duration?>
    {
        let days = number(key, default: defaultValue, in: range, help)
        return Setting<Duration?>(key, default: defaultValue, help) { text in
            days.read(text).map { $0 == 0 ? nil : .seconds($0 * 86_400) }
        }
    }

    /// A port number, `0` for any free one.
    public static func port(_ key: String, default defaultValue: String, _ help: String) -> Setting<Int> {
        number(key, default: defaultValue, in: 0...65_535, expected: "a port number from 0 to 65535", help)
    }

    /// A limit counted in `unit` (`calls a minute`) from `minimum` to ten million;
    /// from 0, `0` is no limit.
    public static func limit(
        _ key: String, default defaultValue: String, of unit: String, minimum: Int = 0, _ help: String
    ) -> Setting<Int> {
        number(
            key, default: defaultValue, in: minimum...10_000_000,
            expected: "a number of \(unit) from \(minimum) to 10000000\(minimum == 0 ? " (0: no limit)" : "")", help)
    }

    /// A readable file's path; one that cannot be read is refused.
    public static func readableFile(_ key: String, _ help: String) -> Setting<String> {
        Setting<String>(key, help) { path in
            FileManager.default.isReadableFile(atPath: path)
                ? .success(path) : .failure(SettingProblem(": cannot read \(path)"))
        }
    }

    /// A log level.
    public static func logLevel(_ key: String, default defaultValue: String, _ help: String) -> Setting<Logger.Level> {
        choice(key, default: defaultValue, "trace, debug, info, notice, warning, error or critical", help) {
            Logger.Level(rawValue: $0)
        }
    }
}
