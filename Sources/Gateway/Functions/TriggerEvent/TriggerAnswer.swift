import PushgateCore

/// The answer of `triggerReplyFinished` and `triggerEvent`, in the spirit of FCM's
/// `BatchResponse`: `device_count` = `success_count` + `failure_count` + `pending_count`;
/// with the production gateway's fields beside them (`ok`, `attempted`, `sent`,
/// `excluded`, `pruned`, `preview_included`, `errors`, `reason`), so that its clients
/// read the answer they know.
public struct TriggerAnswer: Sendable, Hashable, Encodable {
    /// What became of the notification on one device.
    public struct DeviceResponse: Sendable, Hashable, Encodable {
        public struct Failure: Sendable, Hashable, Encodable {
            /// The provider's reason, e.g. `Unregistered`.
            public let reason: String
            /// The device document was deleted because of it.
            public let removed: Bool

            public init(reason: String, removed: Bool) {
                self.reason = reason
                self.removed = removed
            }
        }

        public let installationID: String
        /// The push service of the device's token: `apns` or `fcm`.
        public let provider: String
        /// The app the device registered for (its bundle id), when it said.
        public let app: String?
        /// Where the push went when the device's environment is known (stated, or
        /// learned); absent: the gateway's default. The wire calls it
        /// `apns_environment` (APNs's is the one service with environments).
        public let apnsEnvironment: String?
        public let success: Bool
        /// Still being tried (`true` only; absent otherwise).
        public let pending: Bool?
        public let error: Failure?

        public init(
            installationID: String, provider: String, route: DeliveryRoute = .unstated, success: Bool,
            pending: Bool? = nil, error: Failure?
        ) {
            self.installationID = installationID
            self.provider = provider
            self.app = route.app
            self.apnsEnvironment = route.environment?.rawValue
            self.success = success
            self.pending = pending
            self.error = error
        }
    }

    /// The call was accepted (production's answer; errors have their own status).
    public let ok = true
    public let serverKey: String
    /// Absent for an event to the whole server.
    public let agentKey: String?
    /// `server` for an event to every device of the server; absent for one agent's.
    public let scope: String?
    /// Production's names: devices tried (`device_count`), delivered (`success_count`),
    /// deleted for a dead token (`removed_count`).
    public let attempted: Int
    public let sent: Int
    public let pruned: Int
    /// Devices left out: the caller's own (`exclude_installation_id`,
    /// `exclude_fcm_token`) or the same phone registered twice.
    public var excluded = 0
    /// The push shows the caller's preview (`include_preview`, `PUSHGATE_PREVIEW_DEFAULT`).
    public var previewIncluded = false
    /// Failed deliveries by reason; absent when none failed.
    public let errors: [String: Int]?
    /// `unknown_server`: no device ever registered with this secret; nothing was
    /// sent or stored.
    public var reason: String? = nil
    public let deviceCount: Int
    public let successCount: Int
    public let failureCount: Int
    public let removedCount: Int
    /// Deliveries still being tried in the background (retries go on after the answer).
    public let pendingCount: Int
    /// The push services configured: `apns`, `fcm`, `apns+fcm`, or `log` when none is.
    public let delivery: String
    /// Set when the push service refused the gateway's configuration (e.g.
    /// `InvalidProviderToken`): the trigger stopped there; an operator must act.
    public let configurationError: String?
    /// `true` when this trigger repeated an earlier one (same idempotency key within
    /// 24 h): nothing was sent again; the counts are the earlier trigger's.
    public let duplicate: Bool?
    /// `"stale"` when the event is not newer than the last one of its type already
    /// notified for the agent: nothing was sent.
    public var skipped: String?
    public let responses: [DeviceResponse]
    /// `true` when the devices were too many to list (more than
    /// `PUSHGATE_ANSWER_MAX_DEVICES`): `responses` is empty, the counts are whole.
    public var responsesOmitted: Bool? = nil
    /// The event's id: the caller's `event_id`, or the one the gateway made for an
    /// event that can be answered (issue 74); absent when it has none.
    public var eventID: String? = nil
    /// Devices the event was held back from, by reason (`in_app`, `at_keyboard`;
    /// issue 75): not counted among `device_count`, each in its timeline
    /// (`eventStatus`); absent when none was.
    public var heldBack: [String: Int]? = nil
    /// Coalescing: how many events the push that carries this one holds so far.
    public var coalescedCount: Int? = nil
    /// Coalescing: when that push goes out (RFC 3339).
    public var heldUntil: String? = nil
}

extension TriggerAnswer {
    /// Pushgate's counts, production's names for them taken from the same numbers.
    init(
        serverKey: ServerKey, agentKey: AgentKey?, deviceCount: Int, successCount: Int, failureCount: Int,
        removedCount: Int, pendingCount: Int, errors: [String: Int]?, delivery: String, configurationError: String?,
        duplicate: Bool, responses: [DeviceResponse]
    ) {
        self.init(
            serverKey: serverKey.hex, agentKey: agentKey?.hex, scope: agentKey == nil ? "server" : nil,
            attempted: deviceCount, sent: successCount,
            pruned: removedCount, errors: errors, deviceCount: deviceCount, successCount: successCount,
            failureCount: failureCount, removedCount: removedCount, pendingCount: pendingCount, delivery: delivery,
            configurationError: configurationError, duplicate: duplicate ? true : nil, skipped: nil,
            responses: responses)
    }

    /// The answer from the outbox's count of the deliveries; each device listed from
    /// `statuses` when given (their tallies are then the counts), else the list left
    /// out (`responses_omitted`): an agent too big to list within the proxy's timeout.
    /// `unexpanded`: devices of an expansion still to be read, counted as pending.
    init(
        _ tallies: [DeliveryTally], statuses: [ReportedDelivery]?, unexpanded: Int = 0, serverKey: ServerKey,
        agentKey: AgentKey?, delivery: String, configurationError: String?, duplicate: Bool
    ) {
        let tallies = statuses.map(DeliveryTally.of) ?? tallies
        func count(where include: (DeliveryTally) -> Bool) -> Int {
            tallies.lazy.filter(include).map(\.count).reduce(0, +)
        }
        // A delivery withdrawn (the device unsubscribed meanwhile) counts as not made, its reason `Unsubscribed`.
        var errors: [String: Int] = [:]
        for tally in tallies where tally.state == .failed || tally.state == .cancelled {
            errors[tally.lastReason ?? "unknown", default: 0] += tally.count
        }
        self.init(
            serverKey: serverKey,
            agentKey: agentKey,
            deviceCount: count { _ in true } + unexpanded,
            successCount: count { $0.state == .delivered },
            failureCount: errors.values.reduce(0, +),
            removedCount: count(where: \.removed),
            pendingCount: count { $0.state == .pending } + unexpanded,
            errors: errors.isEmpty ? nil : errors,
            delivery: delivery,
            configurationError: configurationError,
            duplicate: duplicate,
            responses: (statuses ?? []).map { status in
                DeviceResponse(
                    installationID: status.installationID,
                    provider: status.provider.rawValue,
                    route: status.route,
                    success: status.state == .delivered,
                    pending: status.state == .pending ? true : nil,
                    error: status.state == .delivered
                        ? nil : status.lastReason.map { .init(reason: $0, removed: status.removed) }
                )
            }
        )
        if statuses == nil { responsesOmitted = true }
    }

    /// The answer from a first try's own record of what it did (``DeliveryRunner/Report/updates``),
    /// with no read: each of `deliveries` as the try left it, pending when the try did
    /// not send or record it; listed up to `maxListed` devices, in installation-id
    /// order as the outbox lists them.
    init(
        _ deliveries: [OutboxDelivery], after updates: [DeliveryUpdate], maxListed: Int, serverKey: ServerKey,
        agentKey: AgentKey?, delivery: String, configurationError: String?
    ) {
        let recorded = Dictionary(updates.map { ($0.installationID, $0) }, uniquingKeysWith: { _, last in last })
        let statuses = Self.inListOrder(deliveries).map { delivery in
            let update = recorded[delivery.installationID]
            let route = update?.route ?? delivery.route
            let status = { (state: DeliveryState, reason: String?, removed: Bool) in
                ReportedDelivery(
                    installationID: delivery.installationID, provider: delivery.token.kind, state: state,
                    attempts: delivery.attempts + (update == nil ? 0 : 1), lastReason: reason, removed: removed,
                    route: route)
            }
            switch update?.change {
            case .delivered: return status(.delivered, nil, false)
            case .failed(let reason, let removed): return status(.failed, reason, removed)
            case .retry(let reason, _): return status(.pending, reason, false)
            case nil: return status(.pending, nil, false)
            }
        }
        self.init(
            DeliveryTally.of(statuses), statuses: statuses.count <= maxListed ? statuses : nil, serverKey: serverKey,
            agentKey: agentKey, delivery: delivery, configurationError: configurationError, duplicate: false)
    }

    /// Deliveries in the order the outbox lists them: by installation id, byte by byte.
    static func inListOrder(_ deliveries: [OutboxDelivery]) -> [OutboxDelivery] {
        deliveries.sorted { $0.installationID.utf8.lexicographicallyPrecedes($1.installationID.utf8) }
    }

    /// The answer before any try: every delivery stored and pending; listed up to
    /// `maxListed` devices.
    static func accepted(
        _ deliveries: [OutboxDelivery], serverKey: ServerKey, agentKey: AgentKey?, delivery: String,
        maxListed: Int = .max
    ) -> TriggerAnswer {
        let listed = deliveries.count <= maxListed
        var answer = TriggerAnswer(
            serverKey: serverKey, agentKey: agentKey, deviceCount: deliveries.count, successCount: 0, failureCount: 0,
            removedCount: 0, pendingCount: deliveries.count, errors: nil, delivery: delivery, configurationError: nil,
            duplicate: false,
            responses: !listed
                ? []
                : inListOrder(deliveries)
                    .map {
                        DeviceResponse(
                            installationID: $0.installationID, provider: $0.token.kind.rawValue, route: $0.route,
                            success: false, pending: true, error: nil)
                    }
        )
        if !listed { answer.responsesOmitted = true }
        return answer
    }

    /// What the trigger's plan decided beyond the outbox's record: the devices it
    /// left out and whether the push shows the caller's preview.
    mutating func describe(_ plan: TriggerPlan) {
        excluded = plan.excludedCount
        previewIncluded = plan.previewIncluded
        var held: [String: Int] = [:]
        for twin in plan.heldBack {
            held[twin.notification.content.heldBack?.reason ?? "unknown", default: 0] += twin.deliveries.count
        }
        heldBack = held.isEmpty ? nil : held
    }

    /// The answer to a stale event: nothing sent.
    static func skipped(serverKey: ServerKey, agentKey: AgentKey?, delivery: String) -> TriggerAnswer {
        var answer = accepted([], serverKey: serverKey, agentKey: agentKey, delivery: delivery)
        answer.skipped = "stale"
        return answer
    }

    /// The answer for a secret no device registered with: nothing sent or stored.
    static func unknownServer(serverKey: ServerKey, agentKey: AgentKey?, delivery: String) -> TriggerAnswer {
        var answer = accepted([], serverKey: serverKey, agentKey: agentKey, delivery: delivery)
        answer.reason = "unknown_server"
        return answer
    }
}
