import Foundation
import PushgateLiveActivity

/// What one event does to its agent's Live Activity (issue 64), decided from what
/// the trigger read: the run's next state, and the ActivityKit push that shows it —
/// to whom, and what the end leaves behind.
///
/// - `run_started`: a new run; `start` to each device with a push-to-start token (an
///   activity token still stored is an earlier run's, and is forgotten), with the
///   attributes, an alert and `input-push-token`, living minutes.
/// - `run_progress`: the step and counts; `update` at priority 5 to each running
///   activity (held by the outbox and folded, the latest state winning:
///   ``TriggerPlan``).
/// - `approval_requested`: waiting; `update` at priority 10 with a silent alert (the
///   approval's own push makes the sound).
/// - `reply_finished`, `run_completed`, `run_failed`, `run_ended` (the session ended
///   without a reply): done or failed, the preview when
///   shown; `end` at priority 5 with a dismissal date, and the activity's token
///   removed from the device in the same write, so that nothing follows the end.
///
/// Other events leave the activity alone. Devices without activity tokens get nothing.
public struct LiveActivityPlan: Sendable {
    /// The state to keep on the agent document; `nil` once the run ended.
    public let state: AgentRunContentState?
    /// The push; `nil` when the event does not touch the activity.
    public let push: LiveActivityPush?
    /// One per device the push goes to (its activity or push-to-start token).
    public let deliveries: [OutboxDelivery]
    /// At the end, each device's activity token removed; at a start, the tokens of
    /// earlier runs' activities still stored (each while the device still holds it).
    public let tokenRemovals: [DocumentWrite]

    /// Whether an event of `type` touches the activity.
    public static func drives(_ type: EventType) -> Bool {
        switch type {
        case .runStarted, .runProgress, .runEnded, .approvalRequested, .replyFinished, .runCompleted, .runFailed: true
        case .custom, .questionAsked: false
        }
    }

    /// - Parameters:
    ///   - event: as shown (a hidden preview already left out).
    ///   - previous: the run's state as the agent document keeps it.
    public init(
        _ event: EventComposer.Event, agentName: String, serverKey: ServerKey, agentKey: AgentKey,
        devices: [DeviceRecord], previous: AgentRunContentState?, rules: LiveActivityRules,
        carrier: LiveActivityCarrier, notificationID: String,
        sealedIDKey: SealedIDKey? = nil, now: Date
    ) throws {
        let seconds = Int(now.timeIntervalSince1970)
        let progress = event.progress ?? [:]
        let fresh = AgentRunContentState(phase: .running, startedAt: seconds, updatedAt: seconds)
        var state = event.type == .runStarted ? fresh : previous ?? fresh
        state.updatedAt = seconds
        if let step = progress["step"]?.stringValue { state.step = String(step.prefix(200)) }
        if case .number(let count)? = progress["tools_used"], let whole = Int(exactly: count), whole >= 0 {
            state.toolsUsed = whole
        }
        if event.progress != nil {
            // The latest step's details only (a step's `progress` is at most 1 KiB):
            // merged, a long run's keys would pile up on the agent and in every push.
            state.details = [:]
            for (key, value) in progress where key != "step" && key != "tools_used" {
                state.details[key] = value.asDataString.stringValue ?? ""
            }
        }
        let text = ReplyPreview.sanitized(event.body)
        let kind: LiveActivityPush.Event
        var alert: LiveActivityPush.Alert?
        let targets: [(device: DeviceRecord, token: String)]
        switch event.type {
        case .runStarted:
            kind = .start
            alert = .init(title: agentName, body: state.step ?? "Run started")
            // Every phone with a push-to-start token: an activity token still stored
            // is an earlier run's (its end lost, or registered after it), and must
            // not keep this run off the lock screen. It goes with this start.
            targets = devices.compactMap { device in device.activityStartToken.map { (device, $0) } }
        case .runProgress:
            // A step after an approval: the run goes on.
            state.phase = .running
            kind = .update
            targets = Self.running(devices)
        case .approvalRequested:
            state.phase = .waitingForApproval
            kind = .update
            // Lights the activity without a sound: the approval's own push beside it
            // makes the one sound (two for one approval would be one too many).
            alert = .init(title: agentName, body: text ?? "Approval needed")
            targets = Self.running(devices)
        case .replyFinished, .runCompleted, .runFailed, .runEnded:
            state.phase = event.type == .runFailed ? .failed : .done
            state.preview = text.map { String($0.prefix(240)) }
            kind = .end
            targets = Self.running(devices)
        case .custom, .questionAsked:
            self.state = previous
            push = nil
            deliveries = []
            tokenRemovals = []
            return
        }
        let attributes: JSONValue? =
            kind == .start
            ? ["agentName": .string(agentName), "serverKey": .string(serverKey.hex), "agentKey": .string(agentKey.hex)]
            : nil
        let staleDate = kind == .end ? nil : seconds + Int(rules.staleAfter.components.seconds)
        let dismissalDate = kind == .end ? seconds + Int(rules.dismissAfter.components.seconds) : nil
        // Cut before anything is stored: the state kept is the state sent.
        var (push, sent) = try Self.fitting(state, alert: alert, carrier: carrier) { state, alert in
            try LiveActivityPush(
                event: kind, timestamp: seconds, contentState: state, alert: alert, attributes: attributes,
                staleDate: staleDate, dismissalDate: dismissalDate)
        }
        if kind == .start, let sealedIDKey {
            // Sealed devices' attributes name the server and agent by keyed ids (issue
            // 72): the agent's is its pushes' keyed thread id, which the app opens with them.
            push.sealedAttributes = [
                "serverKey": .string(sealedIDKey.keyed(serverKey.hex)),
                "agentKey": .string(sealedIDKey.keyed(agentKey.hex)),
            ]
        }
        state = sent
        self.state = kind == .end ? nil : state
        self.push = targets.isEmpty ? nil : push
        deliveries = zip(targets, RandomUUID.make(count: targets.count)).map { target, pushID in
            OutboxDelivery(
                notificationID: notificationID, installationID: target.device.installationID,
                token: DeviceToken(kind: carrier.service, value: target.token),
                // Its sealing kept: a sealed device's activity is left the agent's words.
                route: target.device.route,
                pushID: pushID)
        }
        switch kind {
        case .end:
            tokenRemovals = targets.map { Self.activityTokenRemoval(from: $0.device, token: $0.token) }
        case .start:
            tokenRemovals = targets.compactMap { target in
                target.device.activityToken.map { Self.activityTokenRemoval(from: target.device, token: $0) }
            }
        case .update:
            tokenRemovals = []
        }
    }

    /// The push `make` builds from `state` and `alert`, cut until its payload fits
    /// its carrier's (``LiveActivityCarrier``; APNs refuses a larger one, and would
    /// refuse every retry of it): the details go first, then the preview, the step
    /// and the alert's body are shortened, then left out. Throws
    /// ``LiveActivityPush/TooLarge`` when even that does not fit.
    static func fitting(
        _ state: AgentRunContentState, alert: LiveActivityPush.Alert?, carrier: LiveActivityCarrier,
        _ make: (AgentRunContentState, LiveActivityPush.Alert?) throws -> LiveActivityPush
    ) throws -> (LiveActivityPush, AgentRunContentState) {
        var state = state
        var alert = alert
        for cut in 0..<4 {
            switch cut {
            case 1:
                state.details = [:]
            case 2:
                state.preview = state.preview.map { String($0.prefix(80)) }
                state.step = state.step.map { String($0.prefix(80)) }
                if let body = alert?.body { alert?.body = String(body.prefix(120)) }
            case 3:
                state.preview = nil
                state.step = nil
                alert?.body = ""
            default:
                break
            }
            let push = try make(state, alert)
            if try carrier.fits(push) { return (push, state) }
        }
        throw LiveActivityPush.TooLarge()
    }

    /// The end of an activity whose token arrived after its run ended (its start
    /// reached the phone late, or the app registered it late): done, dismissed at
    /// once, so that it never stays on the lock screen for hours.
    public static func lateEnd(
        to device: DeviceRecord, token: DeviceToken, notificationID: String, now: Date
    ) throws
        -> (push: LiveActivityPush, delivery: OutboxDelivery)
    {
        let seconds = Int(now.timeIntervalSince1970)
        let push = try LiveActivityPush(
            event: .end, timestamp: seconds,
            contentState: AgentRunContentState(phase: .done, startedAt: seconds, updatedAt: seconds),
            dismissalDate: seconds)
        let delivery = OutboxDelivery(
            notificationID: notificationID, installationID: device.installationID,
            token: token, route: device.route)
        return (push, delivery)
    }

    /// The write that forgets `device`'s activity token `token` (while it still holds it).
    static func activityTokenRemoval(from device: DeviceRecord, token: String) -> DocumentWrite {
        .set(
            device.path,
            [
                FieldName.activityToken: .delete, FieldName.activityRunID: .delete,
                FieldName.activityRegisteredAt: .delete, FieldName.activitySentAt: .delete,
            ], if: .fieldEquals(FieldName.activityToken, .string(token)))
    }

    /// The devices with an activity running for the agent, and its token.
    private static func running(_ devices: [DeviceRecord]) -> [(device: DeviceRecord, token: String)] {
        devices.compactMap { device in device.activityToken.map { (device, $0) } }
    }
}

/// The times an agent's Live Activity keeps (`PUSHGATE_ACTIVITY_*`).
public struct LiveActivityRules: Sendable, Hashable {
    /// At most one update a run's progress sends per this long, the latest state
    /// winning (`PUSHGATE_ACTIVITY_UPDATE_INTERVAL`).
    public var updateInterval: Duration = .seconds(5)
    /// The push service that carries the activity's pushes (APNs's module declares
    /// it, ``PushAddressFormats/liveActivities``); `nil`: no activity is driven.
    public var carrier: LiveActivityCarrier?

    /// How long an ended activity stays on the lock screen (`dismissal-date`).
    public var dismissAfter: Duration = .seconds(15 * 60)
    /// When a state not updated since is shown as out of date (`stale-date`).
    public var staleAfter: Duration = .seconds(15 * 60)

    public init(carrier: LiveActivityCarrier? = nil) {
        self.carrier = carrier
    }
}
