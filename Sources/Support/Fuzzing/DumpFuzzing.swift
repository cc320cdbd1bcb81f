import PushgateCore
import PushgateDumpFormat
import PushgateInstalledServices

/// One input of the dump fuzzer: a line of `pushgate import`, and the same bytes as a
/// Firestore export. Whatever the bytes, a line is refused with a reason or read
/// into a record that writes back as a line reading as the same record (a document
/// the layout takes, with its path's kind); a Firestore export is refused or read,
/// every document it yields taken by the layout.
public enum DumpFuzzing {
    public static func check(_ bytes: [UInt8]) {
        if let record = try? DumpRecord(line: bytes, formats: .installed) {
            guard let line = try? record.line() else {
                require(false, "a record read from a line could not be written: \(record)")
                return
            }
            let again = Result { () throws(DumpError) in try DumpRecord(line: line, formats: .installed) }
            require(again == .success(record), "\(record) wrote a line that reads as \(again)")
            if case .document(let document) = record {
                require(
                    (try? DocumentLayout.check(document.path, document.fields, formats: .installed)) != nil,
                    "\(document.path)")
            }
        }
        guard let json = try? JSONValue.parse(bytes), let export = try? FirestoreExport(json: json, formats: .installed)
        else { return }
        for (location, result) in export.documents {
            guard case .success(let document) = result else { continue }
            require(document.path.rawValue == location, "\(location) became \(document.path)")
            require(
                (try? DocumentLayout.check(document.path, document.fields, formats: .installed)) != nil, "\(location)")
        }
    }
}
