import PushgateCore

/// What a try found out about a device, for its documents: its token is dead, or it
/// belongs to another environment of its service than the one tried first.
public enum DeviceFinding: Sendable, Hashable {
    /// The push service refused the token for good (APNs 410, FCM UNREGISTERED, …):
    /// the device documents holding it go.
    case deadToken(DeviceToken, installationID: String)
    /// The token was refused in one environment and accepted in this one
    /// (``EnvironmentFallback``): every registration of it under the server learns it.
    case learnedEnvironment(DeviceToken, PushEnvironment)
    /// A Live Activity's token refused for good (issue 64): the token goes — an
    /// activity's from the device under the notification's agent, a push-to-start
    /// token from every device of the server holding it — and the device stays.
    case deadActivityToken(DeviceToken, installationID: String)
    /// An activity's push of `timestamp` was delivered: no push of an older state
    /// goes to that activity after it.
    case activitySent(DeviceToken, installationID: String, timestamp: Int)
}
