/// An env file's text as lines, each with the ending it had (`\n`, `\r\n`, or none for
/// a last line without one), and a byte-order mark kept aside: the lines an edit does
/// not touch are written back byte for byte, and a new line ends as the file's own do.
/// (A `String` split on `"\n"` does not split `"\r\n"`, one `Character`: a file written
/// on Windows read as one line.)
struct EnvironmentFileLines {
    struct Line {
        var text: String
        var ending: String
    }

    /// `"\u{FEFF}"` when the file began with one, else empty.
    var byteOrderMark: String
    var lines: [Line]
    /// The file's own line ending: its first line's; `\n` for a file without one.
    let newline: String

    init(_ contents: String) {
        var bytes = Array(contents.utf8)[...]
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        byteOrderMark = bytes.starts(with: mark) ? "\u{FEFF}" : ""
        if !byteOrderMark.isEmpty { bytes = bytes.dropFirst(mark.count) }
        var lines: [Line] = []
        while !bytes.isEmpty {
            guard let lineFeed = bytes.firstIndex(of: 0x0A) else {
                lines.append(Line(text: String(decoding: bytes, as: UTF8.self), ending: ""))
                break
            }
            let carriageReturn = lineFeed > bytes.startIndex && bytes[bytes.index(before: lineFeed)] == 0x0D
            let end = carriageReturn ? bytes.index(before: lineFeed) : lineFeed
            // Cut at ASCII bytes, so each part of valid UTF-8 is valid UTF-8.
            lines.append(
                Line(text: String(decoding: bytes[..<end], as: UTF8.self), ending: carriageReturn ? "\r\n" : "\n"))
            bytes = bytes[bytes.index(after: lineFeed)...]
        }
        self.lines = lines
        newline = lines.first { !$0.ending.isEmpty }?.ending ?? "\n"
    }

    var text: String {
        byteOrderMark + lines.map { $0.text + $0.ending }.joined()
    }

    /// Adds a line at the end (giving the last line an ending first, when it had none).
    mutating func append(_ text: String) {
        if let last = lines.indices.last, lines[last].ending.isEmpty { lines[last].ending = newline }
        lines.append(Line(text: text, ending: newline))
    }
}
