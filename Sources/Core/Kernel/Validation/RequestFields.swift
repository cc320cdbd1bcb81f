import Foundation

/// The fields of a JSON request body, read with checks that name the field at fault.
///
/// `null` counts as absent, as clients often send it for "not given". Fields not
/// asked for are ignored. Text never holds C0 control characters (NUL included:
/// PostgreSQL cannot store it, and a log line or a lock screen should not show
/// the others); free text that is shown as a paragraph may hold tabs and line breaks.
public struct RequestFields: Sendable {
    /// How far ahead of the gateway's clock a time field may be. A time further
    /// ahead would order every later event before it, silencing the agent for good.
    public static let maxClockSkew: TimeInterval = 5 * 60

    private let object: [String: JSONValue]
    /// When the request arrived, by the gateway's clock: what times are checked against.
    public let receivedAt: Date

    /// Parses a request body: valid UTF-8, valid JSON, an object, no key twice in an object.
    public init(body: some Collection<UInt8>, receivedAt: Date = Date()) throws(FunctionError) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(body)
        } catch .invalidUTF8 {
            throw .invalidArgument("the request body is not valid UTF-8")
        } catch {
            throw .invalidArgument("the request body is not valid JSON")
        }
        guard let object = value.objectValue else {
            throw .invalidArgument("the request body must be a JSON object, not \(value.kindName)")
        }
        if let key = DuplicateKeyScan.firstDuplicate(in: body) {
            throw .invalidArgument("the request body has the key '\(Self.shown(key))' twice in one object")
        }
        self.object = object
        self.receivedAt = receivedAt
    }

    public init(_ object: [String: JSONValue], receivedAt: Date = Date()) {
        self.object = object
        self.receivedAt = receivedAt
    }

    /// A string field that must be present.
    public func requiredString(_ name: String) throws(FunctionError) -> String {
        guard let value = try optionalString(name) else {
            throw .invalidArgument("'\(name)' is required", field: name)
        }
        return value
    }

    /// An array of one-line strings that must be present (it may be empty).
    public func requiredStrings(_ name: String) throws(FunctionError) -> [String] {
        guard case .array(let items)? = object[name] else {
            throw object[name] == nil || object[name] == .null
                ? .invalidArgument("'\(name)' is required", field: name)
                : .invalidArgument("'\(name)' must be an array of strings", field: name)
        }
        var strings: [String] = []
        for item in items {
            guard let text = item.stringValue else {
                throw .invalidArgument("'\(name)' must be an array of strings", field: name)
            }
            try FieldRules.printable(text, field: name)
            strings.append(text)
        }
        return strings
    }

    /// A string field that may be absent (or `null`). `multiline` text (a message,
    /// a preview) may hold tabs and line breaks; no text holds another C0 control.
    public func optionalString(_ name: String, multiline: Bool = false) throws(FunctionError) -> String? {
        switch object[name] {
        case nil, .null?: return nil
        case .string(let value)?:
            try FieldRules.printable(value, field: name, multiline: multiline)
            return value
        case let other?: throw .invalidArgument("'\(name)' must be a string, not \(other.kindName)", field: name)
        }
    }

    /// An RFC 3339 time that may be absent (or `null`), at most ``maxClockSkew`` after
    /// ``receivedAt``.
    public func optionalTimestamp(_ name: String) throws(FunctionError) -> Date? {
        guard let text = try optionalString(name) else { return nil }
        guard let date = RFC3339.parse(text) else {
            throw .invalidArgument(
                "'\(name)' must be an RFC 3339 timestamp from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z",
                field: name)
        }
        guard date.timeIntervalSince(receivedAt) <= Self.maxClockSkew else {
            throw .invalidArgument(
                "'\(name)' is more than \(Int(Self.maxClockSkew / 60)) minutes ahead of the gateway's clock",
                field: name)
        }
        return date
    }

    /// An object of any JSON values (custom data that keeps its types), every text in
    /// it — keys and strings at any depth — free of control characters (line breaks
    /// and tabs allowed in strings when `multiline`).
    /// - Parameter checksTexts: whether every text inside is checked for control
    ///   characters; `false` for an object whose reader checks the members it takes
    ///   and ignores the rest (a Web Push subscription).
    public func optionalObject(_ name: String, multiline: Bool = false, checksTexts: Bool = true) throws(FunctionError)
        -> [String: JSONValue]?
    {
        switch object[name] {
        case nil, .null?: return nil
        case .object(let members)?:
            if checksTexts { try Self.checkTexts(in: .object(members), field: name, multiline: multiline) }
            return members
        case let other?:
            throw .invalidArgument("'\(name)' must be an object, not \(other.kindName)", field: name)
        }
    }

    private static func checkTexts(in value: JSONValue, field: String, multiline: Bool) throws(FunctionError) {
        switch value {
        case .string(let text): try FieldRules.printable(text, field: field, multiline: multiline)
        case .array(let items): for item in items { try checkTexts(in: item, field: field, multiline: multiline) }
        case .object(let members):
            for (key, member) in members {
                try FieldRules.printable(key, field: field, multiline: false)
                try checkTexts(in: member, field: field, multiline: multiline)
            }
        default: break
        }
    }

    /// A whole number from 0 to 2^53 given as a JSON number or as a string of decimal
    /// digits (clients of the production gateway send either); anything else counts
    /// as absent, as production ignores it.
    public func lenientCount(_ name: String) -> Int? {
        switch object[name] {
        case .number(let value)?:
            return value >= 0 && value <= 9_007_199_254_740_992 && value.rounded() == value ? Int(value) : nil
        case .string(let text)?:
            guard (1...16).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
                return nil
            }
            return Int(text)
        default:
            return nil
        }
    }

    /// A whole number within `range`, which may be absent (or `null`); a fraction, a
    /// string or a number out of range is the error naming the field.
    public func optionalInteger(_ name: String, in range: ClosedRange<Int64>) throws(FunctionError) -> Int64? {
        switch object[name] {
        case nil, .null?: return nil
        case .number(let value)?:
            guard let whole = Int64(exactly: value), range.contains(whole) else {
                throw .invalidArgument(
                    "'\(name)' must be a whole number from \(range.lowerBound) to \(range.upperBound)", field: name)
            }
            return whole
        case let other?: throw .invalidArgument("'\(name)' must be a number, not \(other.kindName)", field: name)
        }
    }

    /// A whole number within `range` that must be there.
    public func requiredInteger(_ name: String, in range: ClosedRange<Int64>) throws(FunctionError) -> Int64 {
        guard let value = try optionalInteger(name, in: range) else {
            throw .invalidArgument("'\(name)' is required", field: name)
        }
        return value
    }

    /// A boolean field that may be absent (or `null`).
    public func optionalBool(_ name: String) throws(FunctionError) -> Bool? {
        switch object[name] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        case let other?: throw .invalidArgument("'\(name)' must be a boolean, not \(other.kindName)", field: name)
        }
    }

    /// A key as an error message may show it: what is not printable escaped, at most 64 characters.
    private static func shown(_ key: String) -> String {
        String(InvisibleCharacters.escaped(key).prefix(64))
    }
}
