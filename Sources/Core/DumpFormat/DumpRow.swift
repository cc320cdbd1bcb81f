import Foundation
import PushgateCore

/// Reads one outbox row of a dump (`{"notification": {…}}` and its kin): each column
/// checked for its type and form, and a column the outbox does not have refused, so
/// that a dump from a newer Pushgate is not imported with part of it dropped.
struct DumpRow {
    private let kind: String
    private var columns: [String: JSONValue]

    init(_ json: JSONValue, kind: String) throws(DumpError) {
        guard let columns = json.objectValue else { throw DumpError("\(kind): must be an object") }
        self.kind = kind
        self.columns = columns
    }

    /// Throws when a column was left unread: one this version does not know.
    func finish() throws(DumpError) {
        if let unknown = columns.keys.sorted().first {
            throw DumpError("\(kind): unknown column '\(unknown)'")
        }
    }

    mutating func optionalString(_ name: String) throws(DumpError) -> String? {
        switch columns.removeValue(forKey: name) {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?: throw DumpError("\(kind): '\(name)' must be a string, not \(other.kindName)")
        }
    }

    mutating func string(_ name: String) throws(DumpError) -> String {
        guard let text = try optionalString(name) else { throw DumpError("\(kind): '\(name)' is missing") }
        return text
    }

    /// A row id (a notification's, a push id): 1–128 visible ASCII characters.
    mutating func identifier(_ name: String) throws(DumpError) -> String {
        let text = try string(name)
        guard Self.isIdentifier(text) else {
            throw DumpError("\(kind): '\(name)' must be 1 to 128 visible ASCII characters")
        }
        return text
    }

    static func isIdentifier(_ text: String) -> Bool {
        (1...128).contains(text.utf8.count) && text.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    mutating func optionalIdentifier(_ name: String) throws(DumpError) -> String? {
        guard columns[name] != nil, columns[name] != .null else {
            columns[name] = nil
            return nil
        }
        return try identifier(name)
    }

    /// A server key: 64 lower-case hex digits.
    mutating func key(_ name: String) throws(DumpError) -> String {
        let text = try string(name)
        guard DocumentLayout.isKey(text) else { throw DumpError("\(kind): '\(name)' must be 64 lower-case hex digits") }
        return text
    }

    mutating func installationID(_ name: String) throws(DumpError) -> String {
        let text = try string(name)
        guard DocumentLayout.isInstallationID(text) else {
            throw DumpError("\(kind): '\(name)' is not an installation id (1 to 128 printable ASCII, no '/')")
        }
        return text
    }

    /// A token of a service of `formats`, as that service stores it.
    mutating func token(kind kindName: String, value valueName: String, formats: PushAddressFormats)
        throws(DumpError) -> DeviceToken
    {
        let tokenKind = try string(kindName)
        let value = try string(valueName)
        guard let format = formats.format(named: tokenKind) else {
            throw DumpError("\(kind): '\(kindName)' must be \(formats.servicesInWords)")
        }
        guard format.isStored(value) else {
            throw DumpError("\(kind): '\(valueName)' of \(format.name) must be \(format.storedForm)")
        }
        return DeviceToken(kind: format.service, value: value)
    }

    /// A whole number from 0 to `maximum`.
    mutating func optionalWholeNumber(_ name: String, upTo maximum: Int64) throws(DumpError) -> Int64? {
        switch columns.removeValue(forKey: name) {
        case nil, .null?: return nil
        case .number(let number)? where number >= 0 && number <= Double(maximum) && number.rounded() == number:
            return Int64(number)
        case .some:
            throw DumpError("\(kind): '\(name)' must be a whole number from 0 to \(maximum)")
        }
    }

    mutating func wholeNumber(_ name: String, upTo maximum: Int64) throws(DumpError) -> Int64 {
        guard let value = try optionalWholeNumber(name, upTo: maximum) else {
            throw DumpError("\(kind): '\(name)' is missing")
        }
        return value
    }

    /// Milliseconds since 1970, at most 9999-12-31T23:59:59.999Z: a time every store
    /// reads back and writes out.
    mutating func optionalTime(_ name: String) throws(DumpError) -> Int64? {
        try optionalWholeNumber(name, upTo: RFC3339.latestMilliseconds)
    }

    mutating func time(_ name: String) throws(DumpError) -> Int64 {
        try wholeNumber(name, upTo: RFC3339.latestMilliseconds)
    }

    /// A notification's content: an object the outbox can read back as a ``PushNotification``.
    mutating func notificationContent(_ name: String) throws(DumpError) -> JSONValue {
        guard let content = columns.removeValue(forKey: name), content.objectValue != nil,
            let bytes = try? content.encodedData(),
            (try? JSONDecoder().decode(PushNotification.self, from: bytes)) != nil
        else { throw DumpError("\(kind): '\(name)' is not a notification's content") }
        return content
    }

    /// An expansion's exclusions: `{"installation_id": string or null, "tokens": [string]}`.
    mutating func selection(_ name: String) throws(DumpError) -> JSONValue {
        guard let selection = columns.removeValue(forKey: name), let object = selection.objectValue,
            Set(object.keys).isSubset(of: ["installation_id", "tokens"]),
            object["installation_id"].map({ $0 == .null || $0.stringValue != nil }) ?? true,
            let tokens = object["tokens"]?.arrayValue, tokens.allSatisfy({ $0.stringValue != nil })
        else {
            throw DumpError("\(kind): '\(name)' must be {\"installation_id\": …, \"tokens\": […]}")
        }
        return selection
    }
}
