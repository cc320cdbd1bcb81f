import Foundation

// Writes `EmbeddedMigrations.all`, the SQL files given in order as (identifier, SQL)
// pairs, to the Swift file named first: the build tool of the EmbedMigrations plugin.
//
//   PushgateMigrationEmbedder OUTPUT.swift 0001_documents.sql 0002_outbox.sql …

let arguments = CommandLine.arguments.dropFirst()
guard let output = arguments.first else {
    FileHandle.standardError.write(Data("usage: PushgateMigrationEmbedder OUTPUT.swift FILE.sql …\n".utf8))
    exit(2)
}

/// `text` as a Swift string literal that holds it exactly.
func literal(_ text: String) -> String {
    var quoted = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": quoted += "\\\\"
        case "\"": quoted += "\\\""
        case "\n": quoted += "\\n"
        case "\r": quoted += "\\r"
        case "\t": quoted += "\\t"
        case _ where scalar.value < 0x20: quoted += "\\u{\(String(scalar.value, radix: 16))}"
        default: quoted.unicodeScalars.append(scalar)
        }
    }
    return quoted + "\""
}

var source = """
    // Generated at build time by the EmbedMigrations plugin from the files in store/.
    // Edit those files, not this one.

    enum EmbeddedMigrations {
        /// (the file name without `.sql`, the file's text), in name order.
        static let all: [(identifier: String, sql: String)] = [

    """
for path in arguments.dropFirst() {
    let url = URL(fileURLWithPath: path)
    let sql = try String(contentsOf: url, encoding: .utf8)
    source += "        (\(literal(url.deletingPathExtension().lastPathComponent)), \(literal(sql))),\n"
}
source += "    ]\n}\n"
try Data(source.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
