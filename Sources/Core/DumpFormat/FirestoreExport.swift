import Foundation
import PushgateCore

/// Reads the JSON that `node-firestore-import-export` writes from a Firestore
/// database (documents as objects keyed by id, sub-collections under
/// `"__collections__"`, timestamps as `{"__datatype__": "timestamp", "value":
/// {"_seconds", "_nanoseconds"}}`) into Pushgate's layout.
///
/// The gateway that seed 003 became keeps the same tree as Pushgate with fewer
/// fields: agents and devices have no `createdAt` (their `updatedAt` is taken), a
/// device may have no `platform` (`ios`, as a registration without one). Fields the
/// layout does not have (`serverDisplayName`) are left out and named once; a
/// document the layout refuses is reported with its path, and so is every
/// document under it.
public struct FirestoreExport {
    /// Each document in the tree, parents first, with its path (where it was) and
    /// the document or why it cannot be imported.
    public private(set) var documents: [(location: String, document: Result<Document, DumpError>)] = []
    /// Top-level collections other than `servers`, left out.
    public private(set) var otherCollections: [String] = []
    /// Fields left out because the layout has no place for them, with how many documents had them.
    public private(set) var droppedFields: [String: Int] = [:]

    private let formats: PushAddressFormats

    /// `formats`: the push services whose addresses a device may hold.
    public init(json: JSONValue, formats: PushAddressFormats) throws(DumpError) {
        self.formats = formats
        guard let root = json.objectValue else { throw DumpError("a Firestore export must be a JSON object") }
        let servers: [String: JSONValue]
        if let collections = root["__collections__"] {
            guard let collections = collections.objectValue else {
                throw DumpError("'__collections__' must be an object")
            }
            otherCollections = collections.keys.filter { $0 != NamespacePaths.servers }.sorted()
            servers = collections[NamespacePaths.servers]?.objectValue ?? [:]
        } else {
            // The export of the `servers` collection alone: its documents by id.
            servers = root
        }
        for (id, server) in servers.sorted(by: { $0.key < $1.key }) {
            visit(server, segments: [NamespacePaths.servers, id], refusedAbove: nil)
        }
    }

    private mutating func visit(_ value: JSONValue, segments: [String], refusedAbove: String?) {
        let location = segments.joined(separator: "/")
        var result: Result<Document, DumpError>
        var collections: [String: JSONValue] = [:]
        if let refusedAbove {
            result = .failure(DumpError("it is under \(refusedAbove), which was refused"))
        } else {
            do throws(DumpError) {
                guard var object = value.objectValue else { throw DumpError("a document must be an object") }
                if let nested = object.removeValue(forKey: "__collections__") {
                    guard let nested = nested.objectValue else {
                        throw DumpError("'__collections__' must be an object")
                    }
                    collections = nested
                }
                let path: DocumentPath
                do {
                    path = try DocumentPath(segments: segments)
                } catch {
                    throw DumpError(error.detail)
                }
                let fields = try mapped(try Self.converted(object), kind: try DocumentLayout.kind(of: path))
                try DocumentLayout.check(path, fields, formats: formats)
                result = .success(Document(path: path, fields: fields))
            } catch {
                result = .failure(error)
            }
        }
        documents.append((location, result))
        if case .failure = result, collections.isEmpty, let object = value.objectValue {
            collections = object["__collections__"]?.objectValue ?? [:]
        }
        let refused: String? = if case .failure = result { refusedAbove ?? location } else { nil }
        for collectionID in collections.keys.sorted() {
            guard let children = collections[collectionID]?.objectValue else { continue }
            for (id, child) in children.sorted(by: { $0.key < $1.key }) {
                visit(child, segments: segments + [collectionID, id], refusedAbove: refused)
            }
        }
    }

    /// The fields the layout has, with what seed 003's gateway did not write filled in.
    private mutating func mapped(_ fields: [String: JSONValue], kind: DocumentLayout.Kind) throws(DumpError)
        -> [String: JSONValue]
    {
        let known = DocumentLayout.rules(for: kind, formats: formats)
        var kept = fields.filter { known[$0.key] != nil }
        for name in fields.keys where known[name] == nil { droppedFields[name, default: 0] += 1 }
        switch kind {
        case .server:
            if kept[FieldName.createdAt] == nil { kept[FieldName.createdAt] = kept[FieldName.lastSeenAt] }
        case .agent:
            if kept[FieldName.createdAt] == nil { kept[FieldName.createdAt] = kept[FieldName.updatedAt] }
        case .device:
            if kept[FieldName.createdAt] == nil { kept[FieldName.createdAt] = kept[FieldName.updatedAt] }
            if kept[FieldName.platform] == nil { kept[FieldName.platform] = "ios" }
        default: break
        }
        return kept
    }

    /// Field values with Firestore's typed values turned into the layout's: a
    /// timestamp into an RFC 3339 string with milliseconds.
    static func converted(_ fields: [String: JSONValue]) throws(DumpError) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for (name, value) in fields { result[name] = try converted(value, field: name) }
        return result
    }

    private static func converted(_ value: JSONValue, field: String) throws(DumpError) -> JSONValue {
        switch value {
        case .array(let elements):
            var converted: [JSONValue] = []
            for element in elements { converted.append(try Self.converted(element, field: field)) }
            return .array(converted)
        case .object(let object):
            guard let type = object["__datatype__"]?.stringValue else {
                var converted: [String: JSONValue] = [:]
                for (key, nested) in object { converted[key] = try Self.converted(nested, field: field) }
                return .object(converted)
            }
            guard type.lowercased() == "timestamp" else {
                // A field of another Firestore type (geopoint, reference) is no field of the layout:
                // kept as it is, so that the layout's check names it.
                return value
            }
            return .string(RFC3339.format(try timestamp(object["value"], field: field)))
        default:
            return value
        }
    }

    private static func timestamp(_ value: JSONValue?, field: String) throws(DumpError) -> Date {
        guard let value = value?.objectValue,
            case .number(let seconds)? = value["_seconds"] ?? value["seconds"],
            case .number(let nanoseconds)? = value["_nanoseconds"] ?? value["nanoseconds"] ?? .number(0)
        else { throw DumpError("'\(field)': a timestamp needs a value with _seconds and _nanoseconds") }
        // Whole milliseconds, as the layout's timestamps have, within the years 1 to 9999.
        let milliseconds = (seconds * 1000 + (nanoseconds / 1_000_000).rounded(.down))
        guard seconds.rounded() == seconds, nanoseconds.rounded() == nanoseconds,
            (0..<1_000_000_000).contains(nanoseconds),
            milliseconds >= Double(RFC3339.earliestMilliseconds), milliseconds <= Double(RFC3339.latestMilliseconds)
        else {
            throw DumpError(
                "'\(field)': a timestamp must be whole seconds and nanoseconds (below 10^9) "
                    + "from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z")
        }
        return Date(timeIntervalSince1970: milliseconds / 1000)
    }
}
