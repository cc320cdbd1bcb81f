import Foundation

/// Devices an event is held back from for one reason (issue 75), and what they get
/// instead: stored beside the event's push as a twin notification of its own,
/// which names the reason (``PushNotification/heldBack``) for their timelines.
public struct HeldBackGroup: Sendable {
    public let reason: HoldBack
    /// A silent update goes (their app shows the agent's chat, and their service
    /// allows a push that shows nothing).
    public let silent: Bool
    public let devices: [DeviceRecord]
    /// When the twin falls due: the end of the devices' quiet hours, held; `nil`: at once.
    public let dueAt: Date?

    /// Which of `selected` an event goes to as it is, and which are held back: all of
    /// them while the person is at the agent's keyboard; else those whose app shows
    /// the agent's chat (silently where their service allows it), then those in their
    /// quiet hours (passive, or held until each one's hours end). Only an agent's
    /// events that can wait are held back (``HoldBack/applies(to:)``).
    public static func partition(
        _ selected: [DeviceRecord], for event: EventComposer.Event, agentKey: AgentKey?, atKeyboardAt: Date?,
        rules: TriggerRules, now: Date
    ) -> (sent: [DeviceRecord], held: [HeldBackGroup]) {
        guard agentKey != nil, HoldBack.applies(to: event), !selected.isEmpty else { return (selected, []) }
        if let window = rules.atKeyboardWindow, let atKeyboardAt, now.timeIntervalSince(atKeyboardAt) <= window {
            return ([], [HeldBackGroup(reason: .atKeyboard, silent: false, devices: selected, dueAt: nil)])
        }
        var sent: [DeviceRecord] = []
        var silent: [DeviceRecord] = []
        var withheld: [DeviceRecord] = []
        var passive: [DeviceRecord] = []
        // Held until their hours end, by that end: a twin for each.
        var held: [Date: [DeviceRecord]] = [:]
        for device in selected {
            if let until = device.foregroundUntil, until > now {
                if device.allowsSilentPushes { silent.append(device) } else { withheld.append(device) }
            } else if let hours = device.quietHours, hours.contains(now) {
                if rules.holdsInQuietHours {
                    held[hours.end(after: now), default: []].append(device)
                } else {
                    passive.append(device)
                }
            } else {
                sent.append(device)
            }
        }
        let groups =
            [
                HeldBackGroup(reason: .inApp, silent: true, devices: silent, dueAt: nil),
                HeldBackGroup(reason: .inApp, silent: false, devices: withheld, dueAt: nil),
                HeldBackGroup(reason: .quietHoursPassive, silent: false, devices: passive, dueAt: nil),
            ]
            + held.keys.sorted().map { end in
                HeldBackGroup(reason: .quietHours, silent: false, devices: held[end] ?? [], dueAt: end)
            }
        return (sent, groups.filter { !$0.devices.isEmpty })
    }

    /// The twin of `composed` these devices get, stored with the event's push: a
    /// silent update; a passive push; the push itself, due when their quiet hours end
    /// (and living its time to live from then) — folded into the one of the same
    /// agent and type held there before it, if any, which then says how many ("3
    /// replies ready while you slept"); or deliveries stored as not sent.
    public func enqueueRequest(
        of composed: PushNotification, type: EventType, serverKey: ServerKey, agentKey: AgentKey?, now: Date,
        expiresAt: Date
    ) -> EnqueueRequest {
        var content = silent ? PushNotification.silentUpdate(of: composed, heldBack: reason) : composed
        content.heldBack = reason
        if reason == .quietHoursPassive {
            content.interruptionLevel = "passive"
            content.sound = ""
        }
        let twin = OutboxNotification(
            id: RandomUUID.make(), serverKey: serverKey.hex, agentKey: agentKey?.hex ?? OutboxNotification.everyAgent,
            content: content, createdAt: now,
            expiresAt: dueAt.map { expiresAt.addingTimeInterval($0.timeIntervalSince(now)) } ?? expiresAt)
        let sends = silent || reason == .quietHoursPassive || reason == .quietHours
        // Held pushes of one agent and type that end together fold into one.
        let coalescing = dueAt.map { end in
            let twinContent = content
            return OutboxCoalescing(
                key: [
                    serverKey.hex, agentKey?.hex ?? OutboxNotification.everyAgent, "quiet_hours", type.rawValue,
                    String(Int64((end.timeIntervalSince1970 * 1000).rounded())),
                ].joined(separator: ":"),
                heldUntil: end,
                merged: { count in EventComposer.heldThroughQuietHours(twinContent, type: type, count: count) })
        }
        return EnqueueRequest(
            twin, deliveries: OutboxDelivery.deliveries(to: devices, of: twin.id), dueAt: dueAt,
            coalescing: coalescing, withheldBecause: sends ? nil : reason)
    }
}
