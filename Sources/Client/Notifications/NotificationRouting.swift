/// What the app does with a push, as pure functions of it and what the app holds:
/// which of its servers and chats it leads to (by hashing the stored secrets, as the
/// seed says: the secret itself never travels), whether to show its banner while the
/// app is open, and the badge.
public enum NotificationRouting {
    /// The app's server whose push secret hashes to `serverKey`; `secrets` maps the
    /// app's server ids to their secrets.
    public static func serverID(for serverKey: String, secrets: [String: String]) -> String? {
        secrets.keys.sorted().first { PushgateKeys.serverKey(secret: secrets[$0] ?? "") == serverKey }
    }

    /// The chat a tap opens: the push's server among the app's, and its `cwd`; `nil`
    /// for a server the app does not hold, a server-wide event or a silent push.
    public static func destination(of notification: PushgateNotification, secrets: [String: String])
        -> ChatLocation?
    {
        guard !notification.kind.isSilent, let cwd = notification.cwd,
            let serverID = serverID(for: notification.serverKey, secrets: secrets)
        else { return nil }
        return ChatLocation(serverID: serverID, cwd: cwd)
    }

    /// Whether a push that arrives while the app is open shows its banner: not when
    /// its chat is on screen (the reply is already in view), never for a silent push.
    public static func presentsBanner(
        _ notification: PushgateNotification, secrets: [String: String], chatOnScreen: ChatLocation?
    ) -> Bool {
        guard !notification.kind.isSilent else { return false }
        guard let chatOnScreen else { return true }
        return destination(of: notification, secrets: secrets) != chatOnScreen
    }

    /// The badge the icon shows after `userInfo` arrived: its `aps.badge`, or `nil`
    /// to leave the icon as it is (a push that does not count).
    public static func badge(after userInfo: [AnyHashable: Any]) -> Int? {
        PushgateNotification.badge(in: userInfo).map { max(0, $0) }
    }
}
