/// A call the gateway did not answer (away, or busy past its retries), kept in the
/// store until it does. A registration is made with the token and secret current
/// when it is finally sent; a sign-out keeps the secret it needs, since the server's
/// own entry is forgotten at once.
enum PendingCall: Sendable, Hashable, Codable {
    case register(KnownSubscription)
    case signOut(serverID: String, secret: String)

    var serverID: String {
        switch self {
        case .register(let subscription): subscription.serverID
        case .signOut(let serverID, _): serverID
        }
    }
}
