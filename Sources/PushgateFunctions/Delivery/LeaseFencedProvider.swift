import PushgateCore

/// A provider that sends only the deliveries its try still holds (see
/// ``LeaseFence``); the others answer ``LeaseFence/lostReason``.
struct LeaseFencedProvider: PushProvider {
    let base: any PushProvider
    let fence: LeaseFence

    var deliveryName: String { base.deliveryName }
    var health: DeliveryHealth { base.health }
    var reasons: Set<String> { base.reasons }

    func send(_ notification: PushNotification, to targets: [DeliveryTarget]) async -> [DeliveryOutcome] {
        let held = await fence.held(targets)
        let sending = zip(targets, held).filter(\.1).map(\.0)
        guard sending.count < targets.count else { return await base.send(notification, to: targets) }
        let answered = sending.isEmpty ? [] : await base.send(notification, to: sending)
        var sent = FanOut.matched(answered, to: sending).makeIterator()
        return held.map { $0 ? sent.next()! : .retryLater(reason: LeaseFence.lostReason, after: nil) }
    }
}
