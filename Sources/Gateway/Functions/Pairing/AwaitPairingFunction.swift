import Foundation
import PushgateCore

/// `awaitPairing` (issue 82): what `pushgate pair` long-polls — the pairing's
/// completions, answered as soon as there are more than the caller has `seen`, else
/// when its wait (or the pairing) ends. A completion made through another process on
/// the same database wakes it as a decision does (``DecisionWaits``).
public struct AwaitPairingFunction: Sendable {
    private let store: any DocumentStore
    private let waits: DecisionWaits
    private let longestWait: Duration
    private let now: @Sendable () -> Date

    public init(
        store: any DocumentStore, waits: DecisionWaits, longestWait: Duration = .seconds(300),
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.store = store
        self.waits = waits
        self.longestWait = longestWait
        self.now = now
    }

    /// The completions kept, oldest first, and when the pairing closes.
    public struct Answer: Sendable, Hashable {
        public let json: JSONValue

        init(_ record: Document) {
            json = .object([
                "completions": .array(PairingCompletion.all(in: record).map(\.json)),
                "expires_at": .string(record.string(FieldName.expiresAt) ?? ""),
            ])
        }
    }

    /// The caller going away ends the wait: the route cancels the call.
    public func callAsFunction(secret: PushSecret, _ request: AwaitPairingRequest) async throws -> Answer {
        let serverKey = secret.serverKey
        guard let path = NamespacePaths.pairing(request.pairingID, of: serverKey) else { throw PairingRecord.unknown }
        let record = try await PairingRecord.open(at: path, in: store, at: now())
        let seen = request.seen
        guard PairingCompletion.all(in: record).count <= seen, request.wait > 0,
            let closes = PairingRecord.expiresAt(record)
        else { return Answer(record) }
        let untilClosed = Duration.seconds(max(0, closes.timeIntervalSince(now())))
        let waited = try await waits.wait(
            for: path, serverKey: serverKey.hex, upTo: min(.seconds(request.wait), longestWait, untilClosed)
        ) { PairingCompletion.all(in: $0).count > seen }
        if let waited { return Answer(waited) }
        // The wait ended (or the caller left): what the record says now, or that it closed.
        return Answer(try await PairingRecord.open(at: path, in: store, at: now()))
    }
}
