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
            values.append(try cached(&built, badge) { try build(badge) })
        }
        return values
    }

    /// The value `cache` holds for `badge`, made (and kept) when it holds none.
    public static func cached<Value>(_ cache: inout [Int?: Value], _ badge: Int?, _ make: () throws -> Value)
        rethrows -> Value
    {
        if let value = cache[badge] { return value }
        let value = try make()
        cache[badge] = value
        return value
    }
}
