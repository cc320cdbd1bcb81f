import Foundation

/// What ``SubscriptionManager`` keeps in its ``SecureStore`` besides the secrets and
/// the installation id, each as JSON under one key: the known chats, the calls
/// waiting for the gateway, the last token registered.
struct SubscriptionLedger: Sendable {
    let store: any SecureStore

    func subscriptions() throws -> [KnownSubscription] {
        try decoded([KnownSubscription].self, at: StoreKey.subscriptions) ?? []
    }

    /// Adds the chat, or updates its display name.
    func remember(_ subscription: KnownSubscription) throws {
        var all = try subscriptions()
        if let index = all.firstIndex(where: { $0.key == subscription.key }) {
            guard all[index] != subscription else { return }
            all[index] = subscription
        } else {
            all.append(subscription)
        }
        try encode(all, at: StoreKey.subscriptions)
    }

    /// Forgets the server's chats and its registrations still waiting.
    func forget(serverID: String) throws {
        try encode(try subscriptions().filter { $0.serverID != serverID }, at: StoreKey.subscriptions)
        try encode(
            try pending().filter {
                guard case .register = $0 else { return true }
                return $0.serverID != serverID
            }, at: StoreKey.pending)
    }

    func pending() throws -> [PendingCall] {
        try decoded([PendingCall].self, at: StoreKey.pending) ?? []
    }

    /// Keeps a call for later, once: a chat's registration is kept once however often it failed.
    func keep(_ call: PendingCall) throws {
        var all = try pending()
        all.removeAll { $0.sameCall(as: call) }
        all.append(call)
        try encode(all, at: StoreKey.pending)
    }

    func drop(_ call: PendingCall) throws {
        let all = try pending()
        let kept = all.filter { !$0.sameCall(as: call) }
        if kept.count != all.count { try encode(kept, at: StoreKey.pending) }
    }

    func storedToken() throws -> PushToken? {
        try decoded(PushToken.self, at: StoreKey.token)
    }

    func storeToken(_ token: PushToken) throws {
        try encode(token, at: StoreKey.token)
    }

    private func decoded<Value: Decodable>(_ type: Value.Type, at key: String) throws -> Value? {
        guard let text = try store.string(forKey: key) else { return nil }
        // What the store holds was written here; anything else is started afresh.
        return try? JSONDecoder().decode(type, from: Data(text.utf8))
    }

    private func encode(_ value: some Encodable, at key: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try store.set(String(decoding: try encoder.encode(value), as: UTF8.self), forKey: key)
    }
}

extension PendingCall {
    /// The same chat's registration, or the same server's sign-out.
    func sameCall(as other: PendingCall) -> Bool {
        switch (self, other) {
        case (.register(let one), .register(let two)): one.key == two.key
        case (.signOut(let one, _), .signOut(let two, _)): one == two
        default: false
        }
    }
}
