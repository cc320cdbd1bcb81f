import Foundation
import Logging
import PushgateCore
import Synchronization

/// One try of some deliveries of one notification: sends them (fan-out), deletes
/// the devices whose tokens are dead, and records in the outbox what became of each,
/// chunk by chunk as the answers come in, renewing its leases while it runs.
public struct DeliveryRunner: Sendable {
    let store: any DocumentStore
    let outbox: any Outbox
    let provider: any PushProvider
    let fanOut: FanOut
    let policy: DeliveryPolicy
    let now: @Sendable () -> Date
    let logger: Logger

    public init(
        store: any DocumentStore,
        outbox: any Outbox,
        provider: any PushProvider,
        fanOut: FanOut = FanOut(),
        policy: DeliveryPolicy = DeliveryPolicy(),
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger
    ) {
        self.store = store
        self.outbox = outbox
        self.provider = provider
        self.fanOut = fanOut
        self.policy = policy
        self.now = now
        self.logger = logger
    }

    /// What a try found that the trigger's answer reports.
    public struct Report: Sendable, Hashable {
        /// The push service refused the gateway's configuration.
        public var configurationError: String?

        mutating func add(_ other: Report) {
            configurationError = configurationError ?? other.configurationError
        }
    }

    /// Tries `deliveries` (leased to `owner` until `leasedUntil`) of `notification`
    /// once. What it no longer holds when a chunk's turn comes (its lease ran out and
    /// another worker claimed it) it neither sends nor records.
    @discardableResult
    public func run(
        _ deliveries: [OutboxDelivery], of notification: OutboxNotification, owner: String, leasedUntil: Date
    ) async throws -> Report {
        guard !deliveries.isEmpty else { return Report() }
        guard now() < notification.expiresAt else {
            try await record(
                deliveries, deliveries.map { _ in .failed(reason: "Expired") }, of: notification, owner: owner)
            return Report()
        }
        let targets = try await targets(of: deliveries, of: notification)
        let fence = LeaseFence(
            outbox: outbox, owner: owner, notificationID: notification.id, heldUntil: leasedUntil,
            lease: policy.lease, now: now)
        let firstError = FirstError()
        let outcomes = await withTaskGroup(of: [DeliveryOutcome]?.self) { group in
            group.addTask {
                // Only what this try still held was sent, and is recorded here.
                await fanOut.deliver(notification.content, to: targets, via: provider, fence: fence) {
                    positions, outcomes in
                    do {
                        try await record(positions.map { deliveries[$0] }, outcomes, of: notification, owner: owner)
                    } catch {
                        firstError.keep(error)
                    }
                }
            }
            group.addTask {
                await fence.renewUntilCancelled()
                return nil
            }
            let outcomes = await group.next() ?? nil
            group.cancelAll()
            return outcomes ?? []
        }
        if let error = firstError.error { throw error }
        return Report(configurationError: outcomes.lazy.compactMap(\.configurationErrorReason).first)
    }

    /// Makes the deliveries of `expansion` page by page from its agent's devices (a
    /// phone once, whichever page meets its token again), tries each page once as
    /// soon as it is read, and stores each once tried, with its outcomes, in page
    /// order (see ``OutboxExpansions/storeTriedPage(_:of:owner:cursor:finished:leaseUntil:now:)``),
    /// while `owner` holds the expansion (leased until `leasedUntil`, renewed as it
    /// runs). Up to `fanOut.maxConcurrentChunks` pages are out at a time: the first
    /// pushes go out before anything is written, and memory holds a few pages, never
    /// the agent. Stops after the last page, when another worker took the expansion
    /// over (its lease ran out), or when cancelled (the pages out are still stored).
    public func expand(
        _ expansion: OutboxExpansion, of notification: OutboxNotification, owner: String, leasedUntil: Date
    ) async throws -> Report {
        let tokens = try await ExpandedTokens.stored(for: notification.id, in: outbox)
        let fence = LeaseFence(
            outbox: outbox, owner: owner, notificationID: notification.id, hold: .expansion, heldUntil: leasedUntil,
            lease: policy.lease, now: now)
        return try await withThrowingTaskGroup(of: Report?.self) { group in
            group.addTask {
                try await expandPages(expansion, of: notification, owner: owner, after: tokens, fence: fence)
            }
            group.addTask {
                await fence.renewUntilCancelled()
                return nil
            }
            defer { group.cancelAll() }
            let report = try await group.next() ?? nil
            return report ?? Report()
        }
    }

    /// A page of an expansion: its deliveries, and where the cursor stands after it.
    private struct ExpansionPage: Sendable {
        let number: Int
        let deliveries: [OutboxDelivery]
        let cursor: String?
        let finished: Bool
    }

    /// Reads the pages of `expansion` after its cursor and tries each in a task of
    /// its own.
    private func expandPages(
        _ expansion: OutboxExpansion, of notification: OutboxNotification, owner: String,
        after stored: ExpandedTokens, fence: LeaseFence
    ) async throws -> Report {
        let collection = NamespacePaths.devices(
            of: AgentKey(hex: notification.agentKey), of: ServerKey(hex: notification.serverKey))
        let turns = PageTurns()
        var tokens = stored
        var cursor = expansion.cursor
        var report = Report()
        try await withThrowingTaskGroup(of: Report.self) { group in
            var running = 0
            var number = 0
            // Stopped (the gateway shutting down, or the expansion lost): whoever goes
            // on starts from the stored cursor.
            while !Task.isCancelled, !turns.broken {
                if running == fanOut.maxConcurrentChunks, let done = try await group.next() {
                    running -= 1
                    report.add(done)
                }
                let documents = try await store.documents(
                    in: collection, selecting: Self.pageFields, after: cursor, limit: fanOut.chunkSize)
                cursor = documents.last?.path.documentID ?? cursor
                let page = ExpansionPage(
                    number: number, deliveries: tokens.admit(Self.deliveries(of: documents, in: expansion)),
                    cursor: cursor, finished: documents.count < fanOut.chunkSize)
                number += 1
                running += 1
                // Every page read takes its turn, one without deliveries too: it moves the cursor.
                group.addTask {
                    try await tryPage(page, of: notification, owner: owner, fence: fence, turns: turns)
                }
                if page.finished { break }
            }
            for try await done in group { report.add(done) }
        }
        return report
    }

    /// Sends a page's pushes, then stores the page with their outcomes once every
    /// page before it is stored.
    private func tryPage(
        _ page: ExpansionPage, of notification: OutboxNotification, owner: String, fence: LeaseFence,
        turns: PageTurns
    ) async throws -> Report {
        let sent: Result<SentPage, any Error>
        do {
            sent = .success(try await send(page, of: notification, fence: fence))
        } catch {
            sent = .failure(error)
        }
        // A page that failed waits for its turn too, and ends it unstored: the pages
        // after it must not move the cursor past it.
        let earlierStored = await turns.wait(for: page.number)
        var stored = false
        defer { turns.end(page.number, stored: stored) }
        let tried = try sent.get()
        guard earlierStored else { return Report() }
        stored = try await outbox.storeTriedPage(
            tried.deliveries, of: notification.id, owner: owner, cursor: page.cursor, finished: page.finished,
            leaseUntil: now().addingTimeInterval(policy.lease.seconds), now: tried.finishedAt)
        return tried.report
    }

    /// A page once its pushes were answered.
    private struct SentPage: Sendable {
        let deliveries: [TriedDelivery]
        let finishedAt: Date
        let report: Report
    }

    /// Sends a page's pushes (or gives them up, expired), deletes the devices of dead
    /// tokens, and answers each delivery as its try left it.
    private func send(_ page: ExpansionPage, of notification: OutboxNotification, fence: LeaseFence)
        async throws -> SentPage
    {
        let deliveries = page.deliveries
        let outcomes = Mutex([DeliveryOutcome?](repeating: nil, count: deliveries.count))
        if now() >= notification.expiresAt {
            outcomes.withLock { $0 = deliveries.map { _ in .failed(reason: "Expired") } }
        } else if !deliveries.isEmpty {
            let targets = try await targets(of: deliveries, of: notification)
            // From the chunks that were sent: a chunk not started (cancelled), and a
            // delivery not sent for want of the expansion's lease, stay not tried.
            _ = await fanOut.deliver(notification.content, to: targets, via: provider, fence: fence) {
                positions, chunkOutcomes in
                outcomes.withLock { outcomes in
                    for (position, outcome) in zip(positions, chunkOutcomes) { outcomes[position] = outcome }
                }
            }
        }
        let tried = outcomes.withLock { $0 }.enumerated().compactMap { position, outcome in
            outcome.map { (position: position, outcome: $0) }
        }
        let finishedAt = now()
        let triedDeliveries = tried.map { deliveries[$0.position] }
        let updates = try await updates(for: triedDeliveries, tried.map(\.outcome), of: notification, at: finishedAt)
        FunctionMetrics.deliveries(tried.map(\.outcome), of: triedDeliveries, provider: self.provider)
        var changes = [DeliveryUpdate?](repeating: nil, count: deliveries.count)
        for (delivery, update) in zip(tried, updates) { changes[delivery.position] = update }
        return SentPage(
            deliveries: zip(deliveries, changes).map { TriedDelivery($0, change: $1?.change, route: $1?.route) },
            finishedAt: finishedAt,
            report: Report(configurationError: tried.lazy.compactMap(\.outcome.configurationErrorReason).first))
    }

    /// What a page reads of each device: its tokens and when it was registered.
    static let pageFields = DeviceRecord.fieldsRead + [FieldName.createdAt]

    /// One page's deliveries: its devices registered by the trigger's acceptance that
    /// the caller did not exclude, each phone once within the page (the outbox keeps
    /// one delivery per installation).
    static func deliveries(of page: [Document], in expansion: OutboxExpansion) -> [OutboxDelivery] {
        let devices = page.filter { document in
            guard let createdAt = document.string(FieldName.createdAt).flatMap(RFC3339.parse) else { return true }
            return createdAt <= expansion.acceptedAt
        }.map(DeviceRecord.init(document:))
        return OutboxDelivery.deliveries(
            to: expansion.selection.apply(to: devices).selected, of: expansion.notificationID)
    }

    /// The devices to send to; with badges, each with its installation's count of
    /// approvals pending under every agent of the server, as it is now (a reminder
    /// an hour later, or a badge update after a resolution, shows the count of then).
    private func targets(of deliveries: [OutboxDelivery], of notification: OutboxNotification) async throws
        -> [DeliveryTarget]
    {
        guard notification.content.showsBadge else { return deliveries.map(\.target) }
        let installations = try await store.documents(
            at: deliveries.map {
                NamespacePaths.installation($0.installationID, serverKeyHex: notification.serverKey)
            })
        var counts: [String: Int] = [:]
        for installation in installations {
            counts[installation.path.documentID] = installation.fields[FieldName.pendingApprovals]?.arrayValue?.count
        }
        return deliveries.map {
            DeliveryTarget(
                installationID: $0.installationID, token: $0.token, route: $0.route, pushID: $0.pushID,
                badge: counts[$0.installationID] ?? 0)
        }
    }

    /// The device documents a dead token is deleted from: the delivery's own, under
    /// the notification's agent; for a server-wide notification (the device may
    /// follow any agent), every device of the server that holds the token.
    private func devices(
        holding token: DeviceToken, of delivery: OutboxDelivery, of notification: OutboxNotification
    ) async throws -> [DocumentPath] {
        guard notification.isServerWide else {
            return [
                NamespacePaths.device(
                    delivery.installationID, agentKeyHex: notification.agentKey, serverKeyHex: notification.serverKey)
            ]
        }
        return try await devices(holding: token, serverKey: notification.serverKey)
    }

    /// Every device document of the server that holds `token`.
    private func devices(holding token: DeviceToken, serverKey: String) async throws -> [DocumentPath] {
        try await store.documents(
            inGroup: NamespacePaths.devices, under: NamespacePaths.server(ServerKey(hex: serverKey)),
            where: .fieldEquals(token.fieldName, .string(token.value))
        ).map(\.path)
    }

    /// Records each delivery's new state, once the devices of dead tokens are deleted.
    private func record(
        _ deliveries: [OutboxDelivery],
        _ outcomes: [DeliveryOutcome],
        of notification: OutboxNotification,
        owner: String
    ) async throws {
        guard !deliveries.isEmpty else { return }
        let finishedAt = now()
        let updates = try await updates(for: deliveries, outcomes, of: notification, at: finishedAt)
        try await outbox.record(updates, owner: owner, now: finishedAt)
        FunctionMetrics.deliveries(outcomes, of: deliveries, provider: provider)
    }

    /// What each try decided: deletes the devices of dead tokens (unless they
    /// registered another token meanwhile), stores the APNs environment a token
    /// turned out to belong to, and answers each delivery's new state.
    private func updates(
        for deliveries: [OutboxDelivery],
        _ outcomes: [DeliveryOutcome],
        of notification: OutboxNotification,
        at finishedAt: Date
    ) async throws -> [DeliveryUpdate] {
        guard !deliveries.isEmpty else { return [] }
        var removals: [Int: [Int]] = [:]  // delivery index → indexes of its deletes
        var writes: [DocumentWrite] = []
        for (index, (delivery, outcome)) in zip(deliveries, outcomes).enumerated() {
            let token = delivery.token
            switch outcome {
            case .tokenInvalid:
                for device in try await devices(holding: token, of: delivery, of: notification) {
                    removals[index, default: []].append(writes.count)
                    writes.append(.delete(device, if: .fieldEquals(token.fieldName, .string(token.value))))
                }
            case .deliveredIn(let environment):
                // Later pushes go straight there; the device is kept, not deleted.
                logger.info(
                    "an APNs token was refused (BadDeviceToken) in one environment and accepted in \(environment.rawValue); stored on the device",
                    metadata: ["installation": "\(delivery.installationID)", "token": "\(token)"])
                // Every registration of the token under the server: it is the same phone.
                for device in try await devices(holding: token, serverKey: notification.serverKey) {
                    writes.append(
                        .set(
                            device,
                            [
                                FieldName.apnsEnvironment: .value(.string(environment.rawValue)),
                                FieldName.apnsEnvironmentLearned: .value(.bool(true)),
                            ], if: .fieldEquals(token.fieldName, .string(token.value))))
                }
            default:
                continue
            }
        }
        let removed = writes.isEmpty ? [] : try await store.commit(writes).map(\.applied)
        return zip(deliveries, outcomes).enumerated().map { index, pair in
            let (delivery, outcome) = pair
            let change: DeliveryUpdate.Change
            var route: DeliveryRoute?
            switch outcome {
            case .delivered:
                change = .delivered
            case .deliveredIn(let environment):
                change = .delivered
                route = delivery.route.learned(environment)
            case .tokenInvalid(let reason):
                change = .failed(reason: reason, removed: removals[index]?.contains { removed[$0] } ?? false)
            case .failed(let reason):
                change = .failed(reason: reason, removed: false)
            case .retryLater(let reason, let after):
                change = policy.afterFailedTry(
                    reason: reason, retryAfter: after, attempts: delivery.attempts + 1, now: finishedAt,
                    expiresAt: notification.expiresAt, jitter: .random(in: 0...1))
            case .configurationError(let reason):
                change = policy.afterFailedTry(
                    reason: reason, retryAfter: nil, attempts: delivery.attempts + 1, now: finishedAt,
                    expiresAt: notification.expiresAt, jitter: .random(in: 0...1))
            }
            return DeliveryUpdate(
                notificationID: delivery.notificationID, installationID: delivery.installationID, change: change,
                route: route)
        }
    }
}

/// The first error met by concurrent recordings.
private final class FirstError: Sendable {
    private let storage = Mutex<(any Error)?>(nil)

    func keep(_ error: any Error) {
        storage.withLock { $0 = $0 ?? error }
    }

    var error: (any Error)? { storage.withLock { $0 } }
}
