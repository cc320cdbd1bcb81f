import Foundation
import PushgateCore

/// `startPairing` (issue 82): `pushgate pair` opens a pairing, and shows the phone its
/// id and a code the gateway never sees. Only where a device registered with the
/// secret (404 `unknown_server`: register the phone first), and at most ``maxOpen`` at
/// once a server (409 `LIMIT_REACHED`): what a holder of the secret can make the store
/// keep stays small. Pairings that closed are deleted here, and by the expiry sweep.
public struct StartPairingFunction: Sendable {
    /// The most pairings a server has open at once.
    public static let maxOpen = 10

    private let store: any DocumentStore
    private let now: @Sendable () -> Date

    public init(store: any DocumentStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.now = now
    }

    /// The pairing opened: its id (for the link) and when it closes.
    public struct Answer: Sendable, Hashable, Encodable {
        public let pairingID: String
        public let expiresAt: String
    }

    public func callAsFunction(secret: PushSecret, _ request: StartPairingRequest) async throws -> Answer {
        let serverKey = secret.serverKey
        guard try await store.document(at: NamespacePaths.server(serverKey)) != nil else {
            throw FunctionError(
                .notFound,
                "no device has registered with this push secret yet: register the phone (it registers its decision key), then pair",
                reason: "unknown_server")
        }
        let now = self.now()
        let pairings = try await store.documents(
            in: NamespacePaths.pairings(of: serverKey), selecting: [FieldName.expiresAt], after: nil,
            limit: Self.maxOpen * 4)
        let closed = pairings.filter { !PairingRecord.isOpen($0, at: now) }
        if !closed.isEmpty { try await store.commit(closed.map { .delete($0.path) }) }
        guard pairings.count - closed.count < Self.maxOpen else {
            throw FunctionError(
                .limitReached,
                "this server has \(Self.maxOpen) pairings open, the most it may: finish or let one expire first")
        }
        let pairingID = PairingID.make()
        let expiresAt = RFC3339.format(now.addingTimeInterval(TimeInterval(request.wait)))
        guard let path = NamespacePaths.pairing(pairingID, of: serverKey) else { throw FunctionError.internal }
        try await store.commit([
            .set(
                path,
                [
                    FieldName.createdAt: .value(.string(RFC3339.format(now))),
                    FieldName.expiresAt: .value(.string(expiresAt)), FieldName.completions: .value(.array([])),
                ])
        ])
        return Answer(pairingID: pairingID, expiresAt: expiresAt)
    }
}
