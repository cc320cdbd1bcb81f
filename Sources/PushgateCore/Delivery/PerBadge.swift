/// A payload built once per badge value a notification shows (once in all unless it
/// shows badges: then each phone's own count), handed out per target.
public enum PerBadge {
    /// `build`'s value for each target's badge, in the targets' order.
    public static func map<Value>(
        _ targets: [DeliveryTarget], of notification: PushNotification, _ build: (Int?) throws -> Value
    ) rethrows -> [Value] {
        var built: [Int?: Value] = [:]
        var values: [Value] = []
        values.reserveCapacity(targets.count)
        for target in targets {
            let badge = notification.badge(for: target)
            if let value = built[badge] {
                values.append(value)
            } else {
                let value = try build(badge)
                built[badge] = value
                values.append(value)
            }
        }
        return values
    }
}
