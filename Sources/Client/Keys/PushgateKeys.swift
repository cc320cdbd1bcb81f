import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#else
    import Crypto
#endif

/// The gateway's keys, computed as the gateway computes them: the lower-case hex
/// SHA-256 of the UTF-8 text, with no normalisation (`/a` and `/a/` are two agents).
public enum PushgateKeys {
    /// A server's key, from its push secret: what a push carries as `server_key`,
    /// so the app finds the server by hashing the secrets it holds.
    public static func serverKey(secret: String) -> String {
        sha256Hex(secret)
    }

    /// An agent's key, from its `cwd`.
    public static func agentKey(cwd: String) -> String {
        sha256Hex(cwd)
    }

    static func sha256Hex(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
