/// The names of the stored fields (camelCase, as in the seed's Firestore layout).
public enum FieldName {
    // Every kind
    public static let createdAt = "createdAt"
    public static let updatedAt = "updatedAt"
    // servers/{serverKey}
    public static let lastSeenAt = "lastSeenAt"
    public static let source = "source"
    // …/agents/{agentKey}
    public static let cwd = "cwd"
    public static let agentDisplayName = "agentDisplayName"
    public static let lastTriggeredAt = "lastTriggeredAt"
    // …/agents/{agentKey}/lastEvents/{type}
    public static let lastOccurredAt = "lastOccurredAt"
    // …/devices/{installationId}
    public static let apnsToken = "apnsToken"
    public static let fcmToken = "fcmToken"
    public static let platform = "platform"
    public static let appVersion = "appVersion"
    public static let bundleID = "bundleId"
    /// Approvals (and other counted events) not yet resolved: `aps.badge`.
    public static let unresolvedApprovals = "unresolvedApprovals"
    // servers/{serverKey}/events/{sha256(eventId)}
    public static let eventID = "eventId"
    public static let agentKey = "agentKey"
    public static let type = "type"
    public static let notificationID = "notificationId"
    public static let countedInstallations = "countedInstallations"
    public static let reminderNotificationIDs = "reminderNotificationIds"
    public static let resolvedAt = "resolvedAt"
    public static let resolution = "resolution"
}
