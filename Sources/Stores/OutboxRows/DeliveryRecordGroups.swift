import Foundation
import PushgateCore

/// A try's ``DeliveryUpdate``s grouped as the SQL outboxes record them: the
/// deliveries of one notification that ended alike in one statement (a fan-out's
/// chunk is mostly "delivered"), retries each with its own time.
public struct DeliveryRecordGroups: Sendable {
    /// Deliveries of one notification that ended the same way.
    public struct Finished: Sendable, Hashable {
        public let notificationID: String
        public let state: DeliveryState
        public var reason: String?
        public var removed = false
        /// The route to store instead (``DeliveryUpdate/route``), as stored; `nil`: unchanged.
        public var route: String?
    }

    public struct Retry: Sendable {
        public let notificationID: String
        public let installationID: String
        public let reason: String
        /// Milliseconds since 1970, as stored.
        public let at: Int64
    }

    /// A delivery the push service named (``DeliveryUpdate/messageID``): stored before
    /// its group finishes it, while it is still leased.
    public struct Named: Sendable {
        public let notificationID: String
        public let installationID: String
        public let messageID: String
    }

    /// Installation ids by how they ended.
    public private(set) var finished: [Finished: [String]] = [:]
    public private(set) var retries: [Retry] = []
    public private(set) var named: [Named] = []

    public init(_ updates: [DeliveryUpdate]) {
        for update in updates {
            switch update.change {
            case .delivered:
                if let messageID = update.messageID {
                    named.append(
                        Named(
                            notificationID: update.notificationID, installationID: update.installationID,
                            messageID: messageID))
                }
                finished[
                    Finished(notificationID: update.notificationID, state: .delivered, route: update.route?.stored),
                    default: []
                ].append(update.installationID)
            case .failed(let reason, let removed):
                let group = Finished(
                    notificationID: update.notificationID, state: .failed, reason: reason, removed: removed)
                finished[group, default: []].append(update.installationID)
            case .retry(let reason, let date):
                retries.append(
                    Retry(
                        notificationID: update.notificationID, installationID: update.installationID, reason: reason,
                        at: OutboxRows.milliseconds(date)))
            }
        }
    }
}
