import PushgateCore

/// What makes the payloads of one notification differ between its targets: the
/// badge each is sent (its own count), whether its phone can answer it (a decision
/// key, issues 73 and 74: the push then carries its actions' category), and whether
/// its app draws it from the data (Android, issue 83). A chunk's payloads are built
/// once per variant, not once per device.
public struct PayloadVariant: Sendable, Hashable {
    public var badge: Int?
    /// What its phone can answer on it; `nil`: nothing.
    public var offers: DecisionKind?
    /// It goes data-only, for the app to draw with its actions.
    public var drawnByApp: Bool

    /// `target`'s variant of `notification`: its badge, and whether it decides (a
    /// decidable notification, a phone with a decision key, and actions to show).
    public init(of notification: PushNotification, for target: DeliveryTarget, actions: ApprovalActions?) {
        badge = notification.badge(for: target)
        offers = actions != nil && target.route.decides ? notification.decisionKind : nil
        drawnByApp = offers != nil && target.route.drawsItsOwn
    }

    /// `notification` as this variant sends it: with the approval's category when it
    /// decides, and marked for its app to draw when it does.
    public func applied(to notification: PushNotification, actions: ApprovalActions?) -> PushNotification {
        guard let offers, let actions else { return notification }
        var decidable = notification
        decidable.category = actions.category(for: offers)
        decidable.offeredDecision = offers
        decidable.drawnByApp = drawnByApp
        return decidable
    }

    /// `build`'s value for each target's variant, in the targets' order.
    public static func map<Value>(
        _ targets: [DeliveryTarget], of notification: PushNotification, actions: ApprovalActions?,
        _ build: (PushNotification, Int?) throws -> Value
    ) rethrows -> [Value] {
        var built: [PayloadVariant: Value] = [:]
        var values: [Value] = []
        values.reserveCapacity(targets.count)
        for target in targets {
            let variant = PayloadVariant(of: notification, for: target, actions: actions)
            values.append(
                try cached(&built, variant) {
                    try build(variant.applied(to: notification, actions: actions), variant.badge)
                })
        }
        return values
    }

    /// The value `cache` holds for `key`, made (and kept) when it holds none.
    public static func cached<Key: Hashable, Value>(_ cache: inout [Key: Value], _ key: Key, _ make: () throws -> Value)
        rethrows -> Value
    {
        if let value = cache[key] { return value }
        let value = try make()
        cache[key] = value
        return value
    }
}
