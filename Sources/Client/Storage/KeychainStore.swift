#if canImport(Security)
    import Foundation
    import Security

    /// A ``SecureStore`` in the Keychain: one generic password per key (the seed's
    /// `push_secret_<serverId>`, `push_installation_id`), under `service`, readable
    /// after the device's first unlock so that a token refresh in the background can
    /// replay the subscriptions.
    public final class KeychainStore: SecureStore {
        public let service: String
        public let accessGroup: String?

        public init(service: String = "pushgate", accessGroup: String? = nil) {
            self.service = service
            self.accessGroup = accessGroup
        }

        public struct KeychainError: Error, CustomStringConvertible {
            public let status: OSStatus
            public var description: String { "Keychain error \(status)" }
        }

        public func string(forKey key: String) throws -> String? {
            var query = baseQuery(key)
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess else { throw KeychainError(status: status) }
            guard let data = result as? Data else { return nil }
            return String(data: data, encoding: .utf8)
        }

        public func set(_ value: String, forKey key: String) throws {
            let data = Data(value.utf8)
            let update = [kSecValueData as String: data] as [String: Any]
            let status = SecItemUpdate(baseQuery(key) as CFDictionary, update as CFDictionary)
            if status == errSecSuccess { return }
            guard status == errSecItemNotFound else { throw KeychainError(status: status) }
            var item = baseQuery(key)
            item[kSecValueData as String] = data
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
            let added = SecItemAdd(item as CFDictionary, nil)
            guard added == errSecSuccess else { throw KeychainError(status: added) }
        }

        public func removeValue(forKey key: String) throws {
            let status = SecItemDelete(baseQuery(key) as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else { throw KeychainError(status: status) }
        }

        public func keys() throws -> [String] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service,
                kSecReturnAttributes as String: true,
                kSecMatchLimit as String: kSecMatchLimitAll,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            if status == errSecItemNotFound { return [] }
            guard status == errSecSuccess else { throw KeychainError(status: status) }
            let items = result as? [[String: Any]] ?? []
            return items.compactMap { $0[kSecAttrAccount as String] as? String }
        }

        private func baseQuery(_ key: String) -> [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service,
                kSecAttrAccount as String: key,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            return query
        }
    }
#endif
