import Foundation

/// A notification whose deliveries are made page by page from its agent's devices
/// while the first pages are being sent, instead of all before anything is sent:
/// what keeps an agent of a million devices answered within the trigger's wait and
/// in bounded memory. Stored with the notification, in the same write, so that the
/// devices of the trigger are reached even when the process that expands them dies
/// (another worker takes over from the cursor once the expansion's lease runs out).
public struct OutboxExpansion: Sendable, Hashable {
    public let notificationID: String
    /// Devices registered after the trigger was accepted are left out.
    public let acceptedAt: Date
    /// The caller's exclusions (`exclude_installation_id`, `exclude_fcm_token`), the
    /// installation's stored tokens included.
    public let selection: DeviceSelection
    /// The last installation id expanded, in id order; `nil` before the first page.
    public var cursor: String?

    public init(notificationID: String, acceptedAt: Date, selection: DeviceSelection, cursor: String? = nil) {
        self.notificationID = notificationID
        self.acceptedAt = acceptedAt
        self.selection = selection
        self.cursor = cursor
    }
}
