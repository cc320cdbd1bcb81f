import Foundation
import PushgateCore
import PushgateDelivery
import PushgateLiveActivity
import PushgateSealing

/// Settles an event once: decided from a phone (``DecideEventFunction``) or resolved
/// without a decision (`resolveEvent`, or its time ran out: ``EventExpiry``), never
/// both. Either writer first *claims* the record in one conditional write that holds
/// only where neither a decision nor a resolution is stored (``claim(_:resolution:at:)``;
/// atomic on every store, across processes), and only the winner's answer says it
/// took effect. Then the claim is *finished* (``finish(_:serverKey:resolution:at:)``):
/// the installations it counted lose it from their badge, its reminders not yet sent
/// are withdrawn, and each of those installations is sent a silent badge update
/// (``PushNotification/badgeUpdate(serverKey:)``) through the outbox, so the icon is
/// right without opening the app; that update also withdraws an approval's banner
/// (`event_resolved`), and the agent's Live Activity, waiting for it, goes back to running.
///
/// The claim makes the record due at once (`expiresAt`), and every step of the
/// finish is safe to repeat, the record marked resolved (`resolvedAt`) last: a
/// process that dies half-way leaves the claim standing, and the caller's retry or the
/// expiry of any process finishes it without counting twice — the badge holds event
/// ids (an array removal), reminders are cancelled by id, and the badge update carries
/// an idempotency key.
struct EventResolution: Sendable {
    let store: any DocumentStore
    let outbox: any OutboxWriting
    let worker: DeliveryWorker
    /// Told of each approval settled: the agent waiting for it hears at once.
    let waits: DecisionWaits
    let policy: DeliveryPolicy

    /// What a finished resolution did.
    struct Outcome: Sendable, Hashable {
        let remindersCancelled: Int
        /// Installations sent a badge update.
        let badgeUpdates: Int
    }

    /// Who settled an event.
    enum Claim: Sendable {
        /// This call: the record as it was read before the claim.
        case won
        /// A phone's decision came first: the record as it stands.
        case decided(Document)
        /// Another resolution came first (maybe not finished yet): the record as it stands.
        case resolved(Document)
    }

    /// The fields neither writer may find stored when it claims an event: a
    /// decision (one stored before claims existed has no resolution yet) or a resolution.
    static let claimedBy = [FieldName.decidedAt, FieldName.resolution]

    /// Whether an event is settled: decided, or claimed by a resolution.
    static func isSettled(_ record: Document) -> Bool {
        claimedBy.contains { record.fields[$0] != nil }
    }

    /// Claims `record` for `resolution` with `fields` beside it (a decision and its
    /// proof): one write that holds only when the event is not settled yet.
    func claim(
        _ record: Document, resolution: String, with fields: [String: FieldValue] = [:], at now: Date
    ) async throws -> Claim {
        if let settled = Self.claim(of: record) { return settled }
        var claim = fields
        claim[FieldName.resolution] = .value(.string(resolution))
        // Due at once: should this process die before it finishes, the expiry sweep
        // of any process finishes it within a minute.
        claim[FieldName.expiresAt] = .value(.string(RFC3339.format(now)))
        let written = try await store.commit([.set(record.path, claim, if: .fieldsMissing(Self.claimedBy))])
        guard written.first?.applied == true else {
            let stored = try await store.document(at: record.path) ?? record
            return Self.claim(of: stored) ?? .resolved(stored)
        }
        if DecideEventFunction.kind(of: record) != nil {
            await waits.settled(at: record.path)
        }
        return .won
    }

    /// Who settled `record`; `nil` while nobody has.
    private static func claim(of record: Document) -> Claim? {
        if record.string(FieldName.decidedAt) != nil { return .decided(record) }
        if record.string(FieldName.resolution) != nil { return .resolved(record) }
        return nil
    }

    /// Claims `record` for `resolution` and finishes it; `nil` when another settled it
    /// first (then ``claim(_:resolution:with:at:)`` says who).
    func resolve(_ record: Document, serverKey: ServerKey, resolution: String, at now: Date) async throws
        -> Outcome?
    {
        guard case .won = try await claim(record, resolution: resolution, at: now) else { return nil }
        return try await finish(record, serverKey: serverKey, resolution: resolution, at: now)
    }

    /// Finishes the claim of `record` (read before or after its claim) as
    /// `resolution`; `nil` when it was finished already (by an earlier call, or by one
    /// that finished first meanwhile).
    func finish(_ record: Document, serverKey: ServerKey, resolution: String, at now: Date) async throws
        -> Outcome?
    {
        guard record.string(FieldName.resolvedAt) == nil else { return nil }
        let eventKey = record.path.documentID
        let badged = Self.strings(record.fields[FieldName.badgedInstallations])
        if !badged.isEmpty {
            try await store.commit(
                badged.map {
                    .set(
                        NamespacePaths.installation($0, serverKeyHex: serverKey.hex),
                        [
                            FieldName.pendingApprovals: .arrayRemove([.string(eventKey)]),
                            FieldName.updatedAt: .value(.string(RFC3339.format(now))),
                        ],
                        if: .exists)
                })
        }
        var cancelled = 0
        for id in Self.strings(record.fields[FieldName.reminderNotificationIDs]) {
            cancelled += try await outbox.cancel(notificationID: id)
        }
        let agentKey = record.string(FieldName.agentKey).flatMap { SHA256Hex.isDigest($0) ? AgentKey(hex: $0) : nil }
        var agent: Document?
        if let agentKey { agent = try await store.document(at: NamespacePaths.agent(agentKey, of: serverKey)) }
        // An answerable event's other phones lose its push too once it is answered (the
        // first answer wins); a question also when it can no longer be answered. A reply
        // nobody answered stays on the phones, as any reply does.
        let withdrawsAnswerable =
            resolution == Self.resolution(of: .answer)
            || record.string(FieldName.type) == EventType.questionAsked.rawValue
        let answerable = withdrawsAnswerable ? Self.strings(record.fields[FieldName.answerableBy]) : []
        let updates = try await sendBadgeUpdate(
            to: Array(Set(badged + answerable)).sorted(),
            resolved: resolvedEvent(record, resolution: resolution, agentKey: agentKey, agent: agent),
            eventKey: eventKey, serverKey: serverKey, at: now)
        if let agentKey, let agent, record.string(FieldName.type) == EventType.approvalRequested.rawValue,
            try await !otherApprovalPending(of: agentKey, serverKey: serverKey, counting: badged, except: eventKey)
        {
            try await resumeActivity(of: agent, agentKey: agentKey, serverKey: serverKey, at: now)
        }
        let resolved = try await store.commit([
            .set(
                record.path,
                [
                    FieldName.resolvedAt: .value(.string(RFC3339.format(now))),
                    FieldName.resolution: .value(.string(resolution)),
                    FieldName.expiresAt: .delete,
                ],
                if: .fieldMissing(FieldName.resolvedAt)
            )
        ])
        guard resolved.first?.applied == true else { return nil }
        return Outcome(remindersCancelled: cancelled, badgeUpdates: updates)
    }

    /// What the badge update says of the event where a push must show something (Web
    /// Push): the agent's name, the resolution's line, and the event's collapse id.
    private func resolvedEvent(_ record: Document, resolution: String, agentKey: AgentKey?, agent: Document?)
        -> ResolvedEvent
    {
        let title =
            agent?.string(FieldName.cwd).map {
                ReplyNotificationComposer.title(displayName: agent?.string(FieldName.agentDisplayName), cwd: $0)
            } ?? "Pushgate"
        var event = EventComposer.Event(
            type: record.string(FieldName.type).flatMap(EventType.init(rawValue:)) ?? .approvalRequested, cwd: nil)
        event.eventID = record.string(FieldName.eventID)
        return ResolvedEvent(
            eventID: event.eventID ?? "", resolution: resolution, title: title,
            collapseID: EventComposer.collapseID(for: event, agentKey: agentKey))
    }

    /// The agent's Live Activity, shown waiting for this approval, goes back to
    /// running (issue 73): a step that brings no news, planned and stored as the
    /// trigger of a `run_progress` would be (folded with the run's steps, its state
    /// kept on the agent), so that a step arriving meanwhile stays in order with it.
    private func resumeActivity(of agent: Document, agentKey: AgentKey, serverKey: ServerKey, at now: Date)
        async throws
    {
        guard let cwd = agent.string(FieldName.cwd),
            let state = agent.fields[FieldName.activityState].flatMap(AgentRunContentState.init(json:)),
            state.phase == .waitingForApproval
        else { return }
        let devices = try await store.documents(
            in: NamespacePaths.devices(of: agentKey, of: serverKey),
            selecting: DeviceRecord.fieldsRead(worker.formats, activities: true), after: nil, limit: nil
        ).map { DeviceRecord(document: $0, formats: worker.formats) }
        let plan = TriggerPlan(
            TriggerRequest(event: EventComposer.Event(type: .runProgress, cwd: cwd), ordering: .none, wait: false),
            serverKey: serverKey, agentKey: agentKey, agentDisplayName: agent.string(FieldName.agentDisplayName),
            devices: devices, activityState: state, rules: policy.triggerRules(worker.formats), now: now)
        _ = try await worker.submit(plan.enqueueRequest)
    }

    /// Whether another approval of the agent is still pending: its Live Activity then
    /// keeps waiting. Looked for among the approvals the installations sent this one
    /// still count (each phone's badge), not in every event the server has kept.
    private func otherApprovalPending(
        of agentKey: AgentKey, serverKey: ServerKey, counting installationIDs: [String], except eventKey: String
    ) async throws -> Bool {
        guard !installationIDs.isEmpty else { return false }
        let installations = try await store.documents(
            at: installationIDs.map { NamespacePaths.installation($0, serverKeyHex: serverKey.hex) })
        let pending = Set(installations.flatMap { Self.strings($0.fields[FieldName.pendingApprovals]) })
            .subtracting([eventKey])
        guard !pending.isEmpty, let events = try? NamespacePaths.server(serverKey).collection(NamespacePaths.events)
        else { return false }
        let records = try await store.documents(at: pending.compactMap { try? events.document($0) })
        return records.contains {
            $0.string(FieldName.agentKey) == agentKey.hex && !Self.isSettled($0)
                && $0.string(FieldName.type) == EventType.approvalRequested.rawValue
        }
    }

    /// Stores (and starts) one silent push to each installation that still has a
    /// device under the server, each phone once; answers how many.
    private func sendBadgeUpdate(
        to installationIDs: [String], resolved: ResolvedEvent, eventKey: String, serverKey: ServerKey, at now: Date
    ) async throws -> Int {
        guard !installationIDs.isEmpty else { return 0 }
        let devices = try await store.documents(
            inGroup: NamespacePaths.devices, under: NamespacePaths.server(serverKey),
            where: .documentIDIn(Set(installationIDs))
        ).map { DeviceRecord(document: $0, formats: worker.formats) }
        let selected = DeviceSelection().apply(to: DeviceRecord.byInstallation(devices)).selected
        let notification = OutboxNotification(
            id: RandomUUID.make(), serverKey: serverKey.hex, agentKey: OutboxNotification.everyAgent,
            content: .badgeUpdate(serverKey: serverKey.hex, resolved: resolved), createdAt: now,
            expiresAt: now.addingTimeInterval(policy.triggerRules(worker.formats).timeToLive))
        let deliveries = OutboxDelivery.deliveries(to: selected, of: notification.id)
        guard !deliveries.isEmpty else { return 0 }
        _ = try await worker.submit(
            EnqueueRequest(
                notification, deliveries: deliveries,
                idempotency: .init(key: "badge-update:" + eventKey, window: policy.idempotencyWindow.seconds)))
        return deliveries.count
    }

    /// The resolution a phone's decision makes: `allowed`, `denied` or `answered`.
    static func resolution(of decision: SignedDecision.Decision) -> String {
        switch decision {
        case .allow, .allowAlways: "allowed"
        case .deny: "denied"
        // A message settles no event (decideEvent refuses it); named as an answer would be.
        case .answer, .say: "answered"
        }
    }

    private static func strings(_ value: JSONValue?) -> [String] {
        value?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}
