/// Where the client keeps what outlives the app's process, by key: the installation
/// id, each server's push secret, the subscriptions to replay after a token change,
/// the calls waiting for the gateway, the keys pushes are sealed for. ``KeychainStore`` on Apple's platforms,
/// ``FileStore`` (one file of mode 0600) elsewhere, ``InMemoryStore`` in tests.
public protocol SecureStore: Sendable {
    func string(forKey key: String) throws -> String?
    func set(_ value: String, forKey key: String) throws
    func removeValue(forKey key: String) throws
    /// Every key stored.
    func keys() throws -> [String]
}

/// The keys the client uses, as the seed names the Keychain's entries.
enum StoreKey {
    static let installationID = "push_installation_id"
    static let secretPrefix = "push_secret_"
    static let subscriptions = "push_subscriptions"
    static let pending = "push_pending"
    static let token = "push_token"
    static let payloadKeys = "push_payload_keys"
    static let activityStartToken = "push_activity_start_token"
    static let decisionKey = "push_decision_key"

    static func secret(ofServer serverID: String) -> String { secretPrefix + serverID }
}
