import PushgateCore
import PushgateSealing

extension PushSealing {
    /// Each target's payload, in the targets' order, as `build` makes it from the
    /// notification it is sent (and its badge): the notification itself for a device
    /// in clear, ``neutral(_:)`` for a neutral one, and for a sealed one the neutral
    /// notification with its `encrypted` record, whose plaintext is cut so that the
    /// payload `measure` counts stays within `maxBytes`. A phone that can decide an
    /// approval gets it with `actions`' category (in clear, sealed or not: the phone
    /// needs it before it opens anything). Clear and neutral payloads are built once
    /// per variant (``PayloadVariant``); a sealed one per device.
    public func payloads<Payload>(
        _ notification: PushNotification, to targets: [DeliveryTarget], maxBytes: Int,
        actions: ApprovalActions? = nil,
        measure: (PushNotification, Int?) throws -> Int,
        build: (PushNotification, Int?) throws -> Payload
    ) throws -> [Payload] {
        var clear: [PayloadVariant: Payload] = [:]
        var neutralPayloads: [PayloadVariant: Payload] = [:]
        var plaintexts: [PayloadVariant: [UInt8]] = [:]
        let neutral = neutral(notification)
        var payloads: [Payload] = []
        payloads.reserveCapacity(targets.count)
        for target in targets {
            let variant = PayloadVariant(of: notification, for: target, actions: actions)
            let badge = variant.badge
            switch sealing(of: target.route) {
            case nil:
                payloads.append(
                    try PayloadVariant.cached(&clear, variant) {
                        try build(variant.applied(to: notification, actions: actions), badge)
                    })
            case .neutral:
                payloads.append(
                    try PayloadVariant.cached(&neutralPayloads, variant) {
                        try build(variant.applied(to: neutral, actions: actions), badge)
                    })
            case .sealed(let keys):
                let shown = variant.applied(to: neutral, actions: actions)
                let plaintext = try PayloadVariant.cached(&plaintexts, variant) {
                    var empty = shown
                    empty.encrypted = ""
                    let room = SealedRecord.maxPlaintext(encodedIn: maxBytes - (try measure(empty, badge)))
                    guard room > 0 else { throw PushSealingError.noRoom }
                    return try SealedPlaintext.encode(notification, badge: badge, maxBytes: room)
                }
                var sealed = shown
                sealed.encrypted = Base64URL.encode(try SealedRecord.seal(plaintext, for: keys))
                payloads.append(try build(sealed, badge))
            }
        }
        return payloads
    }
}

/// The neutral text leaves no room for a sealed record within the service's limit
/// (not with the settings' limits on it).
struct PushSealingError: Error {
    static let noRoom = PushSealingError()
}
