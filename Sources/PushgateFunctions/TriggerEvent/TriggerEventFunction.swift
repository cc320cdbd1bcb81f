import Foundation
import Logging
import PushgateCore

/// `triggerEvent` (and `triggerReplyFinished`, which is one with `type =
/// reply_finished`): notifies every device subscribed to one agent of one event.
///
/// Composes one notification (`EventComposer`), stores it with one delivery per
/// device in the outbox (one atomic write: from here on it is not lost), starts the
/// first try at once, and answers when that try is recorded or after `triggerWait`,
/// whichever comes first; retries go on in the background. With a coalescing
/// window, the event instead waits for the window's end, folded with the others of
/// its type for the agent into one push (answered 202 at once). A repeat (same
/// idempotency key within 24 h) sends nothing and answers the first trigger's
/// counts; an event not newer than the last one of its type notified for the agent
/// is skipped as stale.
public struct TriggerEventFunction: Sendable {
    private let store: any DocumentStore
    private let outbox: any Outbox
    private let worker: DeliveryWorker
    private let policy: DeliveryPolicy
    private let now: @Sendable () -> Date
    private let logger: Logger

    public init(
        store: any DocumentStore,
        outbox: any Outbox,
        worker: DeliveryWorker,
        policy: DeliveryPolicy = DeliveryPolicy(),
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger
    ) {
        self.store = store
        self.outbox = outbox
        self.worker = worker
        self.policy = policy
        self.now = now
        self.logger = logger
    }

    /// The answer, and whether it was given before any try (`wait: false`, HTTP 202).
    public struct Result: Sendable {
        public let answer: TriggerAnswer
        public let accepted: Bool
    }

    public func callAsFunction(secret: PushSecret, _ request: TriggerRequest) async throws -> Result {
        let serverKey = secret.serverKey
        let agentKey = AgentKey(cwd: request.event.cwd)
        let agentPath = NamespacePaths.agent(agentKey, of: serverKey)
        let eventStatePath = NamespacePaths.eventState(request.event.type, of: agentKey, of: serverKey)

        if let occurredAt = request.occurredAt,
            let last = try await store.document(at: eventStatePath)?.string(FieldName.lastOccurredAt).flatMap(
                RFC3339.parse),
            occurredAt <= last
        {
            // A late retry of a trigger already notified is a duplicate, not stale.
            if let key = request.idempotencyKey,
                let earlier = try await outbox.notificationID(
                    idempotencyKey: key, serverKey: serverKey.hex,
                    since: now().addingTimeInterval(-policy.idempotencyWindow.seconds))
            {
                FunctionMetrics.trigger(request.event.type, .duplicate)
                return Result(
                    answer: try await answer(for: earlier, serverKey: serverKey, agentKey: agentKey, duplicate: true),
                    accepted: false)
            }
            FunctionMetrics.trigger(request.event.type, .stale)
            await touch(serverKey: serverKey, at: now())
            return Result(
                answer: Self.skippedAnswer(serverKey: serverKey, agentKey: agentKey, delivery: worker.deliveryName),
                accepted: false)
        }

        async let agent = store.document(at: agentPath)
        async let deviceDocuments = store.documents(
            in: NamespacePaths.devices(of: agentKey, of: serverKey),
            selecting: DeviceRecord.fieldsRead
        )
        let devices = try await deviceDocuments.map(DeviceRecord.init(document:))
        let createdAt = now()
        let notification = OutboxNotification(
            id: RandomUUID.make(),
            serverKey: serverKey.hex,
            agentKey: agentKey.hex,
            content: EventComposer.notification(
                for: request.event,
                displayName: try await agent?.string(FieldName.agentDisplayName),
                serverKey: serverKey,
                agentKey: agentKey
            ),
            createdAt: createdAt,
            expiresAt: createdAt.addingTimeInterval(policy.timeToLive.seconds)
        )
        // A device document without a token (only a hand edit makes one) has nothing to send to.
        let deliveries = devices.compactMap { device in
            device.deliveryToken.map {
                OutboxDelivery(
                    notificationID: notification.id,
                    installationID: device.installationID,
                    token: $0
                )
            }
        }
        // With coalescing, the event waits for the window's end (folded into the push
        // of the first event of the window, if one is open); approvals never wait: each
        // is answered and reminded on its own.
        let coalescing = policy.coalesceWindow.flatMap { window -> OutboxCoalescing? in
            guard request.event.type != .approvalRequested else { return nil }
            let latest = notification.content
            let type = request.event.type
            return OutboxCoalescing(
                key: [serverKey.hex, agentKey.hex, type.rawValue].joined(separator: ":"),
                heldUntil: createdAt.addingTimeInterval(window.seconds),
                merged: { count in EventComposer.coalesced(latest, type: type, count: count) }
            )
        }
        // Tried at once when the worker has room; else stored unleased, for the worker
        // to claim when it has (backpressure: the backlog waits on disk).
        let tryNow = coalescing == nil && worker.admitFirstTry(of: deliveries.count)
        let stored: EnqueueResult
        do {
            stored = try await outbox.enqueue(
                notification,
                deliveries: deliveries,
                firstAttemptAt: createdAt,
                idempotencyKey: request.idempotencyKey,
                window: policy.idempotencyWindow.seconds,
                leasedTo: tryNow ? worker.owner : nil,
                leaseUntil: createdAt.addingTimeInterval(policy.lease.seconds),
                coalescing: coalescing
            )
        } catch {
            if tryNow { worker.cancelFirstTry(of: deliveries.count) }
            throw error
        }
        if case .duplicate = stored, tryNow { worker.cancelFirstTry(of: deliveries.count) }

        switch stored {
        case .created:
            FunctionMetrics.trigger(request.event.type, .accepted)
            FunctionMetrics.devicesNotified(deliveries.count, type: request.event.type)
        case .duplicate(let earlier):
            FunctionMetrics.trigger(request.event.type, .duplicate)
            await touch(serverKey: serverKey, at: createdAt)
            return Result(
                answer: try await answer(for: earlier, serverKey: serverKey, agentKey: agentKey, duplicate: true),
                accepted: false
            )
        case .held(let holder, let count, let heldUntil):
            FunctionMetrics.trigger(request.event.type, .coalesced)
            // The window's first event stores the push; later ones fold into it.
            if count == 1 { FunctionMetrics.devicesNotified(deliveries.count, type: request.event.type) }
            if let eventID = request.event.eventID, notification.content.showsBadge {
                await recordResolvable(eventID, notification: notification, deliveries: deliveries, escalates: false)
            }
            await touch(
                serverKey: serverKey, agentPath: agentPath, event: (eventStatePath, request.occurredAt), at: createdAt)
            var answer = try await answer(for: holder, serverKey: serverKey, agentKey: agentKey)
            answer.coalescedCount = count
            answer.heldUntil = RFC3339.format(heldUntil)
            return Result(answer: answer, accepted: true)
        }

        // From here on the notification is accepted: it is delivered whatever happens next.
        if let eventID = request.event.eventID, request.event.type.escalates || notification.content.showsBadge {
            // Before the first try, so that it shows the new badge count.
            await recordResolvable(
                eventID, notification: notification, deliveries: deliveries, escalates: request.event.type.escalates)
        }
        let answer: TriggerAnswer
        if !tryNow || !request.wait {
            // Everything is pending at this point; say so before the first try starts.
            answer = Self.acceptedAnswer(
                deliveries, serverKey: serverKey, agentKey: agentKey, delivery: worker.deliveryName)
            if tryNow { _ = worker.startFirstTry(deliveries, of: notification) }
            await touch(
                serverKey: serverKey, agentPath: agentPath, event: (eventStatePath, request.occurredAt), at: createdAt)
        } else {
            let firstTry = worker.startFirstTry(deliveries, of: notification)
            await touch(
                serverKey: serverKey, agentPath: agentPath, event: (eventStatePath, request.occurredAt), at: createdAt)
            let report = await firstTry.wait(upTo: policy.triggerWait)
            answer = try await self.answer(
                for: notification.id,
                serverKey: serverKey,
                agentKey: agentKey,
                configurationError: report?.configurationError
            )
        }
        logger.info(
            "event fan-out",
            metadata: [
                "type": "\(request.event.type)",
                "agent": "\(agentKey.hex.prefix(12))",
                "devices": "\(answer.deviceCount)",
                "delivered": "\(answer.successCount)",
                "failed": "\(answer.failureCount)",
                "pending": "\(answer.pendingCount)",
                "removed": "\(answer.removedCount)",
            ]
        )
        return Result(answer: answer, accepted: !request.wait)
    }

    /// An event that can be resolved (`resolveEvent`): its reminders, stored in the
    /// outbox ahead of their time (so a restart neither loses nor repeats one), its
    /// record, and one more unresolved approval on each device's badge. A failure is
    /// logged: the event's own push is stored and goes out regardless.
    private func recordResolvable(
        _ eventID: String,
        notification: OutboxNotification,
        deliveries: [OutboxDelivery],
        escalates: Bool
    ) async {
        do {
            var reminderIDs: [JSONValue] = []
            if escalates {
                for (index, offset) in policy.escalation.enumerated() {
                    let dueAt = notification.createdAt.addingTimeInterval(offset.seconds)
                    let reminder = OutboxNotification(
                        id: RandomUUID.make(),
                        serverKey: notification.serverKey,
                        agentKey: notification.agentKey,
                        content: Self.reminder(of: notification.content, number: index),
                        createdAt: notification.createdAt,
                        expiresAt: dueAt.addingTimeInterval(policy.timeToLive.seconds),
                        reminderOf: notification.id
                    )
                    _ = try await outbox.enqueue(
                        reminder,
                        deliveries: deliveries.map {
                            OutboxDelivery(
                                notificationID: reminder.id, installationID: $0.installationID, token: $0.token)
                        },
                        firstAttemptAt: dueAt,
                        idempotencyKey: nil,
                        window: 0,
                        leasedTo: nil,
                        leaseUntil: dueAt
                    )
                    reminderIDs.append(.string(reminder.id))
                }
            }
            let counts = notification.content.showsBadge
            var record: [String: FieldValue] = [
                FieldName.eventID: .value(.string(eventID)),
                FieldName.agentKey: .value(.string(notification.agentKey)),
                FieldName.type: .value(.string(notification.content.data["type"] ?? "")),
                FieldName.notificationID: .value(.string(notification.id)),
                FieldName.reminderNotificationIDs: .value(.array(reminderIDs)),
                FieldName.createdAt: .value(.string(RFC3339.format(notification.createdAt))),
            ]
            if counts {
                record[FieldName.countedInstallations] = .value(.array(deliveries.map { .string($0.installationID) }))
            }
            var writes: [DocumentWrite] = [
                .set(NamespacePaths.event(eventID, of: ServerKey(hex: notification.serverKey)), record)
            ]
            if counts {
                writes += deliveries.map {
                    .set(
                        NamespacePaths.device(
                            $0.installationID, agentKeyHex: notification.agentKey, serverKeyHex: notification.serverKey),
                        [FieldName.unresolvedApprovals: .increment(1, floor: 0)],
                        if: .exists
                    )
                }
            }
            try await store.commit(writes)
        } catch {
            logger.error("could not store an event's reminders or badge counts", metadata: ["error": "\(error)"])
        }
    }

    /// A reminder: the same push, its body led by "Still waiting: " (the first) or
    /// "Reminder: " (the others), the same collapse id so that it replaces the banner.
    static func reminder(of content: PushNotification, number: Int) -> PushNotification {
        PushNotification(
            title: content.title,
            body: (number == 0 ? "Still waiting: " : "Reminder: ") + content.body,
            data: content.data,
            collapseID: content.collapseID,
            sound: content.sound,
            threadID: content.threadID,
            interruptionLevel: content.interruptionLevel,
            showsBadge: content.showsBadge
        )
    }

    /// Bookkeeping writes — the server's `lastSeenAt`; with `agentPath` the agent's
    /// `lastTriggeredAt` (an agent nobody registered is not created by a trigger); with
    /// an `event` that carries its time, the type's last notified time. A failure is
    /// logged, not answered: the notification is already stored and on its way.
    private func touch(
        serverKey: ServerKey,
        agentPath: DocumentPath? = nil,
        event: (path: DocumentPath, occurredAt: Date?)? = nil,
        at date: Date
    ) async {
        do {
            var writes = try await ServerPresence(store: store).writes(for: serverKey, at: date)
            if let agentPath {
                writes.append(
                    .set(agentPath, [FieldName.lastTriggeredAt: .value(.string(RFC3339.format(date)))], if: .exists))
            }
            if let event, let occurredAt = event.occurredAt {
                writes.append(.set(event.path, [FieldName.lastOccurredAt: .value(.string(RFC3339.format(occurredAt)))]))
            }
            if !writes.isEmpty { try await store.commit(writes) }
        } catch {
            logger.warning("could not record the trigger's times", metadata: ["error": "\(error)"])
        }
    }

    /// The answer from the outbox's record of each delivery.
    private func answer(
        for notificationID: String,
        serverKey: ServerKey,
        agentKey: AgentKey,
        configurationError: String? = nil,
        duplicate: Bool = false
    ) async throws -> TriggerAnswer {
        let statuses = try await outbox.statuses(of: notificationID)
        let responses = statuses.map { status in
            TriggerAnswer.DeviceResponse(
                installationID: status.installationID,
                provider: status.provider.rawValue,
                success: status.state == .delivered,
                pending: status.state == .pending ? true : nil,
                error: status.state == .delivered
                    ? nil : status.lastReason.map { .init(reason: $0, removed: status.removed) }
            )
        }
        return TriggerAnswer(
            serverKey: serverKey.hex,
            agentKey: agentKey.hex,
            deviceCount: statuses.count,
            successCount: statuses.count(where: { $0.state == .delivered }),
            failureCount: statuses.count(where: { $0.state == .failed }),
            removedCount: statuses.count(where: { $0.removed }),
            pendingCount: statuses.count(where: { $0.state == .pending }),
            delivery: worker.deliveryName,
            configurationError: configurationError,
            duplicate: duplicate ? true : nil,
            skipped: nil,
            responses: responses
        )
    }

    /// The answer of `wait: false`: every delivery stored and pending.
    private static func acceptedAnswer(
        _ deliveries: [OutboxDelivery],
        serverKey: ServerKey,
        agentKey: AgentKey,
        delivery: String
    ) -> TriggerAnswer {
        TriggerAnswer(
            serverKey: serverKey.hex,
            agentKey: agentKey.hex,
            deviceCount: deliveries.count,
            successCount: 0,
            failureCount: 0,
            removedCount: 0,
            pendingCount: deliveries.count,
            delivery: delivery,
            configurationError: nil,
            duplicate: nil,
            skipped: nil,
            responses: deliveries.sorted { $0.installationID.utf8.lexicographicallyPrecedes($1.installationID.utf8) }
                .map {
                    .init(
                        installationID: $0.installationID, provider: $0.token.kind.rawValue, success: false,
                        pending: true,
                        error: nil)
                }
        )
    }

    /// The answer to a stale event: nothing sent.
    private static func skippedAnswer(serverKey: ServerKey, agentKey: AgentKey, delivery: String) -> TriggerAnswer {
        TriggerAnswer(
            serverKey: serverKey.hex, agentKey: agentKey.hex, deviceCount: 0, successCount: 0, failureCount: 0,
            removedCount: 0, pendingCount: 0, delivery: delivery, configurationError: nil, duplicate: nil,
            skipped: "stale", responses: [])
    }
}
