import Foundation
import PushgateCore

/// `GET /pairings` (issue 82): the pairings open under the server, for a phone whose
/// person typed the code `pushgate pair` showed rather than scanning its link — the
/// phone signs the code for each (at most ``StartPairingFunction/maxOpen``), and only
/// the machine that made the code can tell which one it answers. Nothing here reveals
/// a code: the gateway never had one.
public struct OpenPairingsFunction: Sendable {
    private let store: any DocumentStore
    private let now: @Sendable () -> Date

    public init(store: any DocumentStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.now = now
    }

    public struct Answer: Sendable, Hashable, Encodable {
        public struct Pairing: Sendable, Hashable, Encodable {
            public let pairingID: String
            public let expiresAt: String
        }

        public let pairings: [Pairing]
    }

    public func callAsFunction(secret: PushSecret) async throws -> Answer {
        let now = self.now()
        let records = try await store.documents(
            in: NamespacePaths.pairings(of: secret.serverKey), selecting: [FieldName.expiresAt], after: nil,
            limit: StartPairingFunction.maxOpen * 4)
        return Answer(
            pairings: records.filter { PairingRecord.isOpen($0, at: now) }.prefix(StartPairingFunction.maxOpen).map {
                Answer.Pairing(pairingID: $0.path.documentID, expiresAt: $0.string(FieldName.expiresAt) ?? "")
            })
    }
}
