import Foundation

// Writes an enum whose `all` holds the files given, in the order given, as
// (file name, text) pairs, to the Swift file named first: the build tool of the
// EmbedFiles plugin (the stores' SQL migrations, the web pages).
//
//   PushgateFileEmbedder OUTPUT.swift ENUM_NAME FILE …

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: PushgateFileEmbedder OUTPUT.swift ENUM_NAME FILE …\n".utf8))
    exit(2)
}
let output = arguments[0]
let enumName = arguments[1]

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
    // Generated at build time by the EmbedFiles plugin. Edit the files it names, not this one.

    enum \(enumName) {
        /// (the file's name, the file's text), in the order the plugin gave them.
        static let all: [(name: String, text: String)] = [

    """
for path in arguments.dropFirst(2) {
    let url = URL(fileURLWithPath: path)
    let text = try String(contentsOf: url, encoding: .utf8)
    source += "        (\(literal(url.lastPathComponent)), \(literal(text))),\n"
}
source += "    ]\n}\n"
try Data(source.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
