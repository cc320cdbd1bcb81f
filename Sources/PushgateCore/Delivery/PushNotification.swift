/// One notification, the same for every device of a fan-out.
public struct PushNotification: Sendable, Hashable, Codable {
    public let title: String
    public let body: String
    /// Custom keys beside `aps` (APNs) or the `data` map (FCM): string to string.
    public let data: [String: String]
    /// `apns-collapse-id`: a newer notification with the same id replaces the older one.
    public let collapseID: String
    public let sound: String

    public init(title: String, body: String, data: [String: String], collapseID: String, sound: String = "default") {
        self.title = title
        self.body = body
        self.data = data
        self.collapseID = collapseID
        self.sound = sound
    }
}
