/// What a try found out about a device, for its documents: its token is dead, or it
/// belongs to the other APNs environment than the one tried first.
public enum DeviceFinding: Sendable, Hashable {
    /// The push service refused the token for good (APNs 410, FCM UNREGISTERED, …):
    /// the device documents holding it go.
    case deadToken(DeviceToken, installationID: String)
    /// The token was refused (`BadDeviceToken`) in one environment and accepted in
    /// this one: every registration of it under the server learns it.
    case learnedEnvironment(DeviceToken, APNsEnvironment)
}
