import CQRencode

/// A QR code drawn in the terminal, two rows of modules a line with Unicode's half
/// blocks, made by Debian's libqrencode (`QRcode_encode8bit`): `pushgate pair`'s link,
/// for the phone's camera. Light modules are drawn in the terminal's text colour, as
/// `qrencode -t UTF8` does, so a dark terminal shows dark modules on light; where
/// standard output is a terminal the colours are set (white text on black) so that a light
/// terminal shows it right too.
enum TerminalQRCode {
    /// The modules around the symbol that stay light (the standard's quiet zone is 4).
    static let quietZone = 2

    /// The lines of the code of `text`; `nil` when libqrencode cannot encode it (over
    /// the 2,953 bytes a symbol holds).
    static func lines(of text: String, colours: Bool) -> [String]? {
        guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard width > 0, let data = code.pointee.data else { return nil }
        // Bit 0 of each module's byte: dark.
        func isDark(_ row: Int, _ column: Int) -> Bool {
            guard (0..<width).contains(row), (0..<width).contains(column) else { return false }
            return data[row * width + column] & 1 == 1
        }
        let span = -quietZone..<(width + quietZone)
        var lines: [String] = []
        for top in stride(from: -quietZone, to: width + quietZone, by: 2) {
            var line = colours ? "\u{1B}[97;40m" : ""
            for column in span {
                // Light modules are drawn: the upper, the lower, both, or neither.
                switch (isDark(top, column), isDark(top + 1, column)) {
                case (false, false): line += "█"
                case (false, true): line += "▀"
                case (true, false): line += "▄"
                case (true, true): line += " "
                }
            }
            lines.append(line + (colours ? "\u{1B}[0m" : ""))
        }
        return lines
    }
}
