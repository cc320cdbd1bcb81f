import Foundation
import PushgateCore

/// One line of a Pushgate dump (JSON Lines): the header first, then every document
/// in path order, then the outbox's work not done yet.
///
/// ```
/// {"pushgate_dump":1,"exported_at":"2026-11-24T10:00:00.000Z"}
/// {"path":"servers/…","fields":{"createdAt":"…"}}
/// {"notification":{"id":"…","server_key":"…",…}}
/// {"delivery":{"notification_id":"…","installation_id":"…",…}}
/// {"expansion":{"notification_id":"…","accepted_at":…,…}}
/// ```
public enum DumpRecord: Sendable, Hashable {
    /// The dump format this version writes and reads.
    public static let formatVersion = 1

    case header(exportedAt: Date, namespace: String?)
    case document(Document)
    case notification(DumpedNotification)
    case delivery(DumpedDelivery)
    case expansion(DumpedExpansion)

    /// The line's bytes, without the newline: keys sorted, but for the header's and a
    /// document's, which lead with what names them (`pushgate_dump`, `path`) for a
    /// reader of the file.
    public func line() throws -> [UInt8] {
        var bytes: [UInt8] = []
        switch self {
        case .header(let exportedAt, let namespace):
            bytes.append(contentsOf: #"{"pushgate_dump":\#(Self.formatVersion),"exported_at":"#.utf8)
            JSONWriter.appendQuoted(RFC3339.format(exportedAt), to: &bytes)
            if let namespace {
                bytes.append(contentsOf: #","namespace":"#.utf8)
                JSONWriter.appendQuoted(namespace, to: &bytes)
            }
        case .document(let document):
            bytes.append(contentsOf: #"{"path":"#.utf8)
            JSONWriter.appendQuoted(document.path.rawValue, to: &bytes)
            bytes.append(contentsOf: #","fields":"#.utf8)
            try JSONWriter.append(.object(document.fields), to: &bytes)
        case .notification(let notification):
            return try JSONValue.object(["notification": notification.json]).encodedBytes()
        case .delivery(let delivery): return try JSONValue.object(["delivery": delivery.json]).encodedBytes()
        case .expansion(let expansion): return try JSONValue.object(["expansion": expansion.json]).encodedBytes()
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// Reads one line; a document is checked against the layout and the rules a
    /// request meets (its times against `now`, the importing clock; a device's
    /// addresses and a delivery's token against `formats`), an outbox row column by
    /// column. A key twice in one object is refused, as in a request.
    public init(line: some Collection<UInt8>, formats: PushAddressFormats, now: Date = Date()) throws(DumpError) {
        let json: JSONValue
        do {
            json = try JSONValue.parse(line)
        } catch .invalidUTF8 {
            throw DumpError("not UTF-8")
        } catch {
            throw DumpError("not a JSON value")
        }
        if let key = DuplicateKeyScan.firstDuplicate(in: line) {
            throw DumpError(
                "the key '\(InvisibleCharacters.escaped(String(key.prefix(80))))' appears twice in one object")
        }
        try self.init(json: json, formats: formats, now: now)
    }

    public init(json: JSONValue, formats: PushAddressFormats, now: Date = Date()) throws(DumpError) {
        guard let object = json.objectValue, object.count <= 3 else {
            throw DumpError("a record must be an object with one of the keys path, notification, delivery, expansion")
        }
        if let version = object["pushgate_dump"] {
            guard version == .number(Double(Self.formatVersion)) else {
                throw DumpError(
                    "a dump of format \(version.encodedText) (this Pushgate reads format 1)", isHeader: true)
            }
            // To the millisecond, as a dump writes it: a finer time would not read
            // back the same from the line this record writes (found by the fuzzer).
            guard let stated = object["exported_at"]?.stringValue.flatMap(RFC3339.parse),
                let exportedAt = RFC3339.parse(RFC3339.format(stated))
            else {
                throw DumpError(
                    "the header's 'exported_at' must be an RFC 3339 time from 0001-01-01T00:00:00Z"
                        + " to 9999-12-31T23:59:59.999Z", isHeader: true)
            }
            self = .header(exportedAt: exportedAt, namespace: object["namespace"]?.stringValue)
            return
        }
        guard object.count == 1 || (object.count == 2 && object["path"] != nil) else {
            throw DumpError("a record must be an object with one of the keys path, notification, delivery, expansion")
        }
        if let path = object["path"] {
            self = .document(try Self.document(path: path, fields: object["fields"], formats: formats, now: now))
        } else if let row = object["notification"] {
            self = .notification(try DumpedNotification(json: row))
        } else if let row = object["delivery"] {
            self = .delivery(try DumpedDelivery(json: row, formats: formats))
        } else if let row = object["expansion"] {
            self = .expansion(try DumpedExpansion(json: row))
        } else {
            let key = object.keys.first ?? ""
            throw DumpError("unknown record kind '\(key.prefix(40))'")
        }
    }

    private static func document(path: JSONValue, fields: JSONValue?, formats: PushAddressFormats, now: Date)
        throws(DumpError) -> Document
    {
        guard let rawPath = path.stringValue else { throw DumpError("'path' must be a string") }
        guard let fields = fields?.objectValue else { throw DumpError("'fields' must be an object") }
        let documentPath: DocumentPath
        do {
            documentPath = try DocumentPath(rawValue: rawPath)
        } catch {
            throw DumpError("'\(rawPath.prefix(200))': \(error.detail)")
        }
        try DocumentLayout.check(documentPath, fields, formats: formats, now: now)
        return Document(path: documentPath, fields: fields)
    }

    /// The notification a delivery or an expansion belongs to.
    public var notificationID: String? {
        switch self {
        case .delivery(let delivery): delivery.notificationID
        case .expansion(let expansion): expansion.notificationID
        case .header, .document, .notification: nil
        }
    }

    /// The namespace (server key) the record belongs to; `nil` for the header.
    public var serverKey: String? {
        switch self {
        case .header: nil
        case .document(let document): document.path.segments[1]
        case .notification(let notification): notification.serverKey
        case .delivery, .expansion: nil
        }
    }
}

extension JSONValue {
    /// Compact JSON text, for messages.
    fileprivate var encodedText: String {
        (try? encodedBytes()).map { String(decoding: $0, as: UTF8.self) } ?? "?"
    }
}
