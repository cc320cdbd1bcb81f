/// One device a notification goes to.
public struct DeliveryTarget: Sendable, Hashable {
    public let installationID: String
    public let token: DeviceToken

    public init(installationID: String, token: DeviceToken) {
        self.installationID = installationID
        self.token = token
    }
}
