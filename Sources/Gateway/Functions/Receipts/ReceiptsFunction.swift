import Foundation
import PushgateCore

/// `receipts` (issue 75): an installation's word that pushes reached it (its
/// Notification Service Extension, a Web Push service worker) or that the person
/// opened them, kept on its deliveries for `eventStatus`. It may confirm only pushes
/// it was sent: naming any other event refuses the whole receipt (403) and records
/// nothing.
public struct ReceiptsFunction: Sendable {
    private let outbox: any OutboxWriting
    private let now: @Sendable () -> Date

    public init(outbox: any OutboxWriting, now: @escaping @Sendable () -> Date = Date.init) {
        self.outbox = outbox
        self.now = now
    }

    /// The answer: what was recorded.
    public struct Answer: Sendable, Hashable, Encodable {
        public let ok = true
        public let kind: String
        public let recorded: Int
    }

    public func callAsFunction(secret: PushSecret, _ request: ReceiptsRequest) async throws -> Answer {
        let receipt = DeliveryReceipt(
            kind: request.kind, serverKey: secret.serverKey.hex, installationID: request.installationID,
            eventIDs: request.eventIDs, at: now())
        switch try await outbox.record(receipt) {
        case .recorded:
            return Answer(kind: request.kind.rawValue, recorded: request.eventIDs.count)
        case .notSent(let missing):
            throw FunctionError(
                .permissionDenied,
                "this installation was not sent \(missing.count == 1 ? "the event" : "\(missing.count) of the events") '\(InvisibleCharacters.escaped(String(missing[0].prefix(200))))'\(missing.count > 1 ? ", …" : ""): nothing was recorded",
                field: "event_ids", reason: "not_a_recipient")
        }
    }
}
