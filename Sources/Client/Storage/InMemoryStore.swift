import Foundation

/// A ``SecureStore`` in memory, for tests and previews.
public final class InMemoryStore: SecureStore {
    private let lock = NSLock()
    nonisolated(unsafe) private var values: [String: String] = [:]

    public init(_ values: [String: String] = [:]) {
        self.values = values
    }

    public func string(forKey key: String) -> String? { lock.withLock { values[key] } }
    public func set(_ value: String, forKey key: String) { lock.withLock { values[key] = value } }
    public func removeValue(forKey key: String) { _ = lock.withLock { values.removeValue(forKey: key) } }
    public func keys() -> [String] { lock.withLock { Array(values.keys) } }
}
