import Crypto

/// Lower-case hex SHA-256, the one hash both keys use.
public enum SHA256Hex {
    public static func digest(of text: String) -> String {
        SHA256.hash(data: Array(text.utf8)).hexString
    }
}

extension Sequence<UInt8> {
    /// Lower-case hex, two characters per byte.
    var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
