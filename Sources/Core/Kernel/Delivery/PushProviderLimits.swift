/// How many devices one send of a push service takes: the fan-out's chunk (the
/// mission's 500), the stores' expansion pages, the provider port's promise.
public enum PushProviderLimits {
    /// The most devices one ``PushProvider/send(_:to:)`` gets: FCM's multicast limit,
    /// kept for APNs as the fan-out's unit of work.
    public static let maxTargetsPerSend = 500
}
