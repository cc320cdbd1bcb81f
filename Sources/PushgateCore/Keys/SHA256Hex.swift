import Crypto

/// Lower-case hex SHA-256, the one hash both keys use.
public enum SHA256Hex {
    public static func digest(of text: String) -> String {
        Hex.string(SHA256.hash(data: Array(text.utf8)))
    }
}
