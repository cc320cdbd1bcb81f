import Foundation

/// A phone's word on pushes it was sent (issue 75, `POST /receipts`): they reached
/// it, or the person opened them.
public struct DeliveryReceipt: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case delivered, opened
    }

    /// The most events one receipt names.
    public static let maxEvents = 100

    public let kind: Kind
    public let serverKey: String
    public let installationID: String
    /// The events, by the ids their triggers' answers named (``PushNotification/trackingID``).
    public let eventIDs: [String]
    public let at: Date

    public init(kind: Kind, serverKey: String, installationID: String, eventIDs: [String], at: Date) {
        self.kind = kind
        self.serverKey = serverKey
        self.installationID = installationID
        self.eventIDs = eventIDs
        self.at = at
    }

    /// What recording it did.
    public enum Outcome: Sendable, Hashable {
        /// Kept on the installation's deliveries of every event (the first time of
        /// each kind stands).
        case recorded
        /// Some events were never sent to the installation: nothing was recorded.
        case notSent([String])
    }
}
