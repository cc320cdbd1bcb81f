import Foundation
import PushgateSealing

#if canImport(UserNotifications)
    import UserNotifications
#endif

/// The app's answers to an approval (issue 73): the person's tap on Allow or Deny
/// signed with this phone's decision key and sent (``SubscriptionManager/decide(eventID:_:message:serverKey:)``),
/// or their words typed in answer to a question or an answerable reply (issue 74),
/// and a withdrawal (`event_resolved`: the approval was decided elsewhere, answered at
/// the terminal, or expired) removing the approval's notification from the screen.
///
/// ```swift
/// // At launch:
/// UNUserNotificationCenter.current().setNotificationCategories(PushgateNotificationHandler.categories())
/// // UNUserNotificationCenterDelegate:
/// func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {
///     guard let push = PushgateNotification(userInfo: response.notification.request.content.userInfo) else { return }
///     let text = (response as? UNTextInputNotificationResponse)?.userText
///     _ = try? await handler.answer(response.actionIdentifier, text: text, to: push)
/// }
/// // application(_:didReceiveRemoteNotification:) → await handler.withdraw(push, from: .current())
/// ```
public struct PushgateNotificationHandler: Sendable {
    /// The category the gateway names an approval a phone can decide by
    /// (`PUSHGATE_APPROVAL_CATEGORY`, per app `approval_category`).
    public static let defaultCategory = "PUSHGATE_APPROVAL"
    /// The actions' identifiers, as the gateway lists them (FCM `data.actions`, Web
    /// Push `actions`).
    public static let allowAction = "allow"
    public static let denyAction = "deny"
    /// Allow, and apply the agent's first permission suggestion (issue 84): offered
    /// on approvals of the category `PUSHGATE_APPROVAL_ALWAYS` (per app
    /// `approval_always_category`), whose `allow_always` data says what it does.
    public static let allowAlwaysAction = "allow_always"
    public static let defaultAlwaysCategory = "PUSHGATE_APPROVAL_ALWAYS"
    /// The category of a question or an answerable reply (`PUSHGATE_REPLY_CATEGORY`,
    /// per app `reply_category`), and its one action: a text input.
    public static let defaultReplyCategory = "PUSHGATE_REPLY"
    public static let answerAction = "answer"

    let subscriptions: SubscriptionManager

    public init(subscriptions: SubscriptionManager) {
        self.subscriptions = subscriptions
    }

    /// The decision an action's identifier makes; `nil` for any other (a tap on the
    /// notification itself, the system's dismiss).
    public static func decision(forAction identifier: String) -> SignedDecision.Decision? {
        SignedDecision.Decision(rawValue: identifier)
    }

    /// Answers `notification` with the action the person chose (`text`: what a text
    /// action's field held, the agent's reason, or the answer's words); `nil` when the
    /// action is no decision, the push does not take it, or an answer has no words.
    public func answer(_ actionIdentifier: String, text: String?, to notification: PushgateNotification)
        async throws -> DecisionAnswer?
    {
        guard let eventID = notification.eventID, let decision = Self.decision(forAction: actionIdentifier),
            decision == .answer ? notification.isAnswerable : notification.kind == .approvalRequested,
            decision != .say, decision != .allowAlways || notification.allowAlways != nil
        else { return nil }
        let message = text.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap {
            $0.isEmpty ? nil : String($0.prefix(decision.maxMessageCharacters))
        }
        // An answer is its words: an empty one is no answer.
        if decision == .answer, message == nil { return nil }
        return try await subscriptions.decide(
            eventID: eventID, decision, message: message, suggestion: decision == .allowAlways ? 0 : nil,
            serverKey: notification.serverKey)
    }

    /// The event whose notification `notification` withdraws; `nil` unless it is a
    /// withdrawal.
    public static func withdrawnEventID(_ notification: PushgateNotification) -> String? {
        notification.kind == .eventResolved ? notification.eventID : nil
    }

    #if canImport(UserNotifications)
        /// The categories to register at launch: an approval's Allow needs the phone
        /// unlocked, its Deny is destructive and takes a reason; a question's Reply
        /// takes the words, and needs the phone unlocked too (the agent acts on them).
        public static func categories(
            named category: String = defaultCategory, alwaysCategory: String = defaultAlwaysCategory,
            replyCategory: String = defaultReplyCategory
        ) -> Set<UNNotificationCategory> {
            let allow = UNNotificationAction(
                identifier: allowAction, title: "Allow", options: [.authenticationRequired])
            let deny = UNTextInputNotificationAction(
                identifier: denyAction, title: "Deny", options: [.destructive],
                textInputButtonTitle: "Deny", textInputPlaceholder: "Why not? (optional)")
            let reply = UNTextInputNotificationAction(
                identifier: answerAction, title: "Reply", options: [.authenticationRequired],
                textInputButtonTitle: "Send", textInputPlaceholder: "Answer the agent")
            let always = UNNotificationAction(
                identifier: allowAlwaysAction, title: "Always", options: [.authenticationRequired])
            return [
                UNNotificationCategory(identifier: category, actions: [allow, deny], intentIdentifiers: []),
                UNNotificationCategory(
                    identifier: alwaysCategory, actions: [allow, always, deny], intentIdentifiers: []),
                UNNotificationCategory(identifier: replyCategory, actions: [reply], intentIdentifiers: []),
            ]
        }

        /// Removes the delivered notifications of the event `notification` withdraws.
        public func withdraw(_ notification: PushgateNotification, from center: UNUserNotificationCenter) async {
            guard let eventID = Self.withdrawnEventID(notification) else { return }
            let delivered = await center.deliveredNotifications()
            let identifiers = delivered.filter { shown in
                PushgateNotification(userInfo: shown.request.content.userInfo)?.eventID == eventID
            }.map(\.request.identifier)
            center.removeDeliveredNotifications(withIdentifiers: identifiers)
        }
    #endif
}
