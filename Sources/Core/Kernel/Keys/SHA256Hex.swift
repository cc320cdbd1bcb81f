import Crypto

/// Lower-case hex SHA-256, the one hash both keys use.
public enum SHA256Hex {
    public static func digest(of text: String) -> String {
        Hex.string(SHA256.hash(data: Array(text.utf8)))
    }
}

extension SHA256Hex {
    /// Whether `text` reads as a digest: 64 lower-case hex digits.
    public static func isDigest(_ text: String) -> Bool {
        text.utf8.count == 64 && Hex.bytes(text) != nil
    }
}
