import PushgateCore

/// What a sealed push holds (issue 63), and a Web Push's plaintext: `{"title",
/// "body", "tag"?, "data"}`, `data` holding the same fields, as strings, an FCM
/// message of the same push carries (`type`, `server_key`, `cwd`, …; `badge` when the
/// push shows one), within `maxBytes`: the preview cut to fit, never the data
/// (``AlertPayload``'s rules). `tag` (Web Push) is what a service worker shows the
/// notification under, so that a newer one with the same tag replaces it, as its
/// `Topic` replaces an undelivered one. A browser that can decide an approval gets its
/// `actions` (`allow`, `deny`) and `require_interaction`; one that can answer in words
/// an `answer` action of `type: text`. A passive push is `silent`. A badge update shows its resolution's line
/// (``PushNotification/badgeUpdate(serverKey:resolved:)``): a Web Push never shows
/// nothing.
public enum SealedPlaintext {
    public static func encode(_ notification: PushNotification, badge: Int?, maxBytes: Int, tag: String? = nil)
        throws -> [UInt8]
    {
        if notification.isBadgeUpdate {
            var data = notification.data.mapValues(\.asDataString)
            data["badge"] = .string(String(badge ?? 0))
            var object: [String: JSONValue] = [
                "title": .string(notification.title), "body": .string(notification.body), "data": .object(data),
            ]
            object["tag"] = tag.map(JSONValue.string)
            return try JSONValue.object(object).encodedBytes()
        }
        var withBadge = notification
        if let badge { withBadge.data["badge"] = .string(String(badge)) }
        return try AlertPayload.fitting(withBadge, maxBytes: maxBytes) { fitted in
            var object: [String: JSONValue] = [
                "title": .string(fitted.title), "body": .string(fitted.body),
                "data": .object(fitted.data.mapValues(\.asDataString)),
            ]
            object["tag"] = tag.map(JSONValue.string)
            // A passive push (quiet hours, issue 75): shown without a sound or a vibration.
            if notification.interruptionLevel == "passive" { object["silent"] = true }
            if let kind = notification.offeredDecision {
                // A browser that can answer (issues 73, 74): its buttons or its text
                // box; what holds an agent up stays until answered.
                // A browser shows two (Chrome's maxActions): Allow and Deny; "Always"
                // (issue 84) is chosen in the app the click opens.
                object["actions"] = .array(kind.actions.filter { $0.id != "allow_always" }.map(Self.action))
                if kind.isApproval || notification.data["type"] == .string(EventType.questionAsked.rawValue) {
                    object["require_interaction"] = true
                }
            }
            return try JSONValue.object(object).encodedBytes()
        }.bytes
    }

    /// A Web Push action: a button, or (`type: text`) a text box whose words the
    /// service worker reads from the click event's `reply`.
    private static func action(_ action: (id: String, title: String, takesText: Bool)) -> JSONValue {
        var object: [String: JSONValue] = ["action": .string(action.id), "title": .string(action.title)]
        if action.takesText {
            object["type"] = "text"
            object["placeholder"] = "Answer the agent"
        }
        return .object(object)
    }
}
