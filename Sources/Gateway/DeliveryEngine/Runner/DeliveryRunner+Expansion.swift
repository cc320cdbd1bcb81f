import AsyncAlgorithms
import Foundation
import Logging
import PushgateCore

/// Turning an expansion's pages: read after its cursor, each tried once as soon as
/// it is read, stored in page order with its outcomes.
extension DeliveryRunner {
    /// Makes the deliveries of `expansion` page by page from its agent's devices (a
    /// phone once, whichever page meets its token again), tries each page once as
    /// soon as it is read and there is room, and stores each once tried, with its
    /// outcomes, in page order (see
    /// ``OutboxExpansions/storeTriedPage(_:of:owner:cursor:finished:leaseUntil:now:)``),
    /// while `owner` holds the expansion (leased until `leasedUntil`, renewed as it
    /// runs). Up to `fanOut.maxConcurrentChunks` pages are out at a time, and one more
    /// is read ahead: the first pushes go out before anything is written, and memory
    /// holds a few pages, never the agent. Stops after the last page, when another
    /// worker took the expansion over (its lease ran out), or when cancelled (the
    /// pages out are still stored).
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
    struct ExpansionPage: Sendable {
        let number: Int
        let deliveries: [OutboxDelivery]
        let cursor: String?
        let finished: Bool
    }

    /// Reads the pages of `expansion` after its cursor and tries each in a task of
    /// its own.
    func expandPages(
        _ expansion: OutboxExpansion, of notification: OutboxNotification, owner: String,
        after stored: ExpandedTokens, fence: LeaseFence
    ) async throws -> Report {
        let collection = NamespacePaths.devices(
            of: AgentKey(hex: notification.agentKey), of: ServerKey(hex: notification.serverKey))
        let stores = PageStores<TriedPage> { pages in
            // Several pages in one write: their deliveries, and where the last leaves
            // the cursor; finished when the last page is (the time of its outcomes,
            // the latest, stands for all of them).
            guard let last = pages.last else { return true }
            // One page alone (the usual case) is stored as it is, not copied.
            let deliveries = pages.count == 1 ? last.sent.deliveries : pages.flatMap(\.sent.deliveries)
            return try await throughOutages {
                try await outbox.storeTriedPage(
                    deliveries, of: notification.id, owner: owner, cursor: last.page.cursor,
                    finished: last.page.finished, leaseUntil: now().addingTimeInterval(policy.lease.seconds),
                    now: last.sent.finishedAt)
            }
        }
        var tokens = stored
        var cursor = expansion.cursor
        var report = Report()
        try await withThrowingTaskGroup(of: Report.self) { group in
            var running = 0
            var number = 0
            // Stopped (the gateway shutting down, or the expansion lost): whoever goes
            // on starts from the stored cursor.
            while !Task.isCancelled, !stores.broken {
                let documents = try await throughOutages {
                    try await store.documents(
                        in: collection, selecting: pageFields, after: cursor, limit: policy.fanOut.chunkSize)
                }
                cursor = documents.last?.path.documentID ?? cursor
                let page = ExpansionPage(
                    number: number, deliveries: tokens.admit(deliveries(of: documents, in: expansion)),
                    cursor: cursor, finished: documents.count < policy.fanOut.chunkSize)
                number += 1
                // Read ahead: the page waits here, read but not sent, for a page out to
                // be stored, so that its read is not between one page's store and the
                // next page's first push (with PostgreSQL a read is a round trip).
                if running == policy.fanOut.maxConcurrentChunks, let done = try await group.next() {
                    running -= 1
                    report.add(done)
                }
                guard !Task.isCancelled, !stores.broken else { break }
                running += 1
                // Every page read is stored, one without deliveries too: it moves the cursor.
                group.addTask {
                    try await tryPage(page, of: notification, fence: fence, stores: stores)
                }
                if page.finished { break }
            }
            for try await done in group { report.add(done) }
        }
        return report
    }

    /// Sends a page's pushes, then stores the page with their outcomes once every
    /// page before it is stored.
    func tryPage(
        _ page: ExpansionPage, of notification: OutboxNotification, fence: LeaseFence,
        stores: PageStores<TriedPage>
    ) async throws -> Report {
        let sent: SentPage
        do {
            sent = try await send(page, of: notification, fence: fence)
        } catch {
            // A page that failed still takes its turn, unstored: the pages after it
            // must not move the cursor past it.
            _ = try? await stores.store(nil, number: page.number)
            throw error
        }
        guard try await stores.store(TriedPage(page: page, sent: sent), number: page.number) else { return Report() }
        return sent.report
    }

    /// A page and its pushes' outcomes, to be stored.
    struct TriedPage: Sendable {
        let page: ExpansionPage
        let sent: SentPage
    }

    /// A page once its pushes were answered.
    struct SentPage: Sendable {
        let deliveries: [TriedDelivery]
        let finishedAt: Date
        let report: Report
    }

    /// Sends a page's pushes (or gives them up, expired), deletes the devices of dead
    /// tokens, and answers each delivery as its try left it.
    func send(_ page: ExpansionPage, of notification: OutboxNotification, fence: LeaseFence)
        async throws -> SentPage
    {
        let deliveries = page.deliveries
        var outcomes = [DeliveryOutcome?](repeating: nil, count: deliveries.count)
        if now() >= notification.expiresAt {
            outcomes = deliveries.map { _ in .failed(reason: "Expired") }
        } else if !deliveries.isEmpty {
            let targets = try await targets(of: deliveries, of: notification)
            // From the chunks that were sent: a chunk not started (cancelled), and a
            // delivery not sent for want of the expansion's lease, stay not tried.
            let sent = AsyncChannel<FanOut.SentChunk>()
            // Heard in a task of its own, which a cancellation does not reach: what
            // was sent is stored with the page.
            let heard = Task { [count = deliveries.count] in
                var outcomes = [DeliveryOutcome?](repeating: nil, count: count)
                for await chunk in sent {
                    for (position, outcome) in zip(chunk.positions, chunk.outcomes) { outcomes[position] = outcome }
                }
                return outcomes
            }
            await policy.fanOut.deliver(
                notification.content, to: targets, via: provider, fence: fence, handingOver: sent)
            outcomes = await heard.value
        }
        let tried = outcomes.enumerated().compactMap { position, outcome in
            outcome.map { (position: position, outcome: $0) }
        }
        let finishedAt = now()
        // Every delivery tried (the usual case): the page's own array, not a copy.
        let triedDeliveries = tried.count == deliveries.count ? deliveries : tried.map { deliveries[$0.position] }
        let updates = try await updates(for: triedDeliveries, tried.map(\.outcome), of: notification, at: finishedAt)
        DeliveryMetrics.deliveries(tried.map(\.outcome), of: triedDeliveries, provider: provider, apps: apps)
        var changes = [DeliveryUpdate?](repeating: nil, count: deliveries.count)
        for (delivery, update) in zip(tried, updates) { changes[delivery.position] = update }
        return SentPage(
            deliveries: zip(deliveries, changes).map {
                TriedDelivery($0, change: $1?.change, route: $1?.route, messageID: $1?.messageID)
            },
            finishedAt: finishedAt,
            report: Report(configurationError: tried.lazy.compactMap(\.outcome.configurationErrorReason).first))
    }

    /// What a page reads of each device: its tokens and when it was registered.
    var pageFields: [String] { DeviceRecord.fieldsRead(formats) + [FieldName.createdAt] }

    /// One page's deliveries: its devices registered by the trigger's acceptance that
    /// the caller did not exclude, each phone once within the page (the outbox keeps
    /// one delivery per installation).
    func deliveries(of page: [Document], in expansion: OutboxExpansion) -> [OutboxDelivery] {
        let devices = page.filter { document in
            guard let createdAt = document.string(FieldName.createdAt).flatMap(RFC3339.parse) else { return true }
            return createdAt <= expansion.acceptedAt
        }.map { DeviceRecord(document: $0, formats: formats) }
        return OutboxDelivery.deliveries(
            to: expansion.selection.apply(to: devices).selected, of: expansion.notificationID)
    }
}
