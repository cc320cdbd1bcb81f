import Foundation
import Logging
import Metrics
import PushgateCore
import ServiceLifecycle

/// Deletes what nobody registered again for `maxAge` (`PUSHGATE_STALE_DEVICE_DAYS`,
/// 90 days), as the production gateway's daily job does: devices first (the app
/// registers again on every chat open and after every token refresh, so a device
/// this old is a phone that is gone), then agents with no device left and no update
/// for as long (with their ordering state), then servers with no agent left and not
/// seen for as long (with their event records and server-wide ordering state).
///
/// Each deletion holds only if the document was not written since it was read (the
/// time it was read with is its precondition), so a registration racing the sweep
/// wins. Runs at start and then once a day, on every process: a second sweep finds
/// nothing left to do.
public struct StaleRegistrationSweep: Service {
    /// What one sweep deleted.
    public struct Result: Sendable, Hashable {
        public var devices = 0
        public var agents = 0
        public var servers = 0

        public init(devices: Int = 0, agents: Int = 0, servers: Int = 0) {
            self.devices = devices
            self.agents = agents
            self.servers = servers
        }
    }

    private let store: any DocumentStore
    private let maxAge: Duration
    private let interval: Duration
    private let now: @Sendable () -> Date
    private let logger: Logger

    public init(
        store: any DocumentStore,
        maxAge: Duration,
        interval: Duration = .seconds(86_400),
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger
    ) {
        self.store = store
        self.maxAge = maxAge
        self.interval = interval
        self.now = now
        self.logger = logger
    }

    public func run() async throws {
        await HousekeepingRounds.run(every: interval, logger: logger, failure: "the stale registration sweep failed") {
            try await sweep()
        }
    }

    /// One sweep: devices, then agents, then servers.
    @discardableResult
    public func sweep() async throws -> Result {
        let cutoff = RFC3339.format(now().addingTimeInterval(-maxAge.seconds))
        var result = Result()

        let devices = try await store.documents(
            inGroup: NamespacePaths.devices, under: nil, where: .stringBefore(FieldName.updatedAt, cutoff))
        for start in stride(from: 0, to: devices.count, by: 500) {
            let writes = devices[start..<min(start + 500, devices.count)].map { unchanged($0, FieldName.updatedAt) }
            result.devices += try await store.commit(writes).count(where: \.applied)
        }

        for agent in try await store.documents(
            inGroup: NamespacePaths.agents, under: nil, where: .stringBefore(FieldName.updatedAt, cutoff))
        where try await isEmpty(agent.path.collection(NamespacePaths.devices)) {
            if try await delete(agent, FieldName.updatedAt, with: [agent.path.collection(NamespacePaths.lastEvents)]) {
                result.agents += 1
            }
        }

        // Heartbeat sources and badge counts as old go too, counted with nothing: not registrations.
        for (group, field) in [
            (NamespacePaths.sources, FieldName.lastSeenAt), (NamespacePaths.installations, FieldName.updatedAt),
        ] {
            let stale = try await store.documents(inGroup: group, under: nil, where: .stringBefore(field, cutoff))
            for start in stride(from: 0, to: stale.count, by: 500) {
                try await store.commit(stale[start..<min(start + 500, stale.count)].map { unchanged($0, field) })
            }
        }

        let servers = try CollectionPath(segments: [NamespacePaths.servers])
        for server in try await store.documents(in: servers, selecting: [FieldName.lastSeenAt, FieldName.createdAt]) {
            let field = server.fields[FieldName.lastSeenAt] == nil ? FieldName.createdAt : FieldName.lastSeenAt
            guard let seenAt = server.string(field), seenAt.utf8.lexicographicallyPrecedes(cutoff.utf8),
                try await isEmpty(server.path.collection(NamespacePaths.agents))
            else { continue }
            let children = try [
                NamespacePaths.events, NamespacePaths.sources, NamespacePaths.lastEvents, NamespacePaths.installations,
            ].map { try server.path.collection($0) }
            if try await delete(server, field, with: children) {
                result.servers += 1
            }
        }

        for (kind, count) in [("device", result.devices), ("agent", result.agents), ("server", result.servers)]
        where count > 0 {
            Counter(label: "pushgate_stale_registrations_swept_total", dimensions: [("kind", kind)])
                .increment(by: count)
        }
        if result != Result() {
            logger.info(
                "swept stale registrations",
                metadata: [
                    "devices": "\(result.devices)", "agents": "\(result.agents)", "servers": "\(result.servers)",
                    "not_updated_since": "\(cutoff)",
                ])
        }
        return result
    }

    /// Deletes `document` unless its time `field` changed since it was read.
    private func unchanged(_ document: Document, _ field: String) -> DocumentWrite {
        .delete(document.path, if: document.fields[field].map { .fieldEquals(field, $0) } ?? .exists)
    }

    /// Deletes `document` unless it changed since it was read, then, when it went,
    /// what its `children` collections hold (a deleted parent's children are
    /// nobody's); whether it went.
    private func delete(_ document: Document, _ field: String, with children: [CollectionPath]) async throws -> Bool {
        guard try await store.commit([unchanged(document, field)])[0].applied else { return false }
        for collection in children {
            let orphans = try await store.documents(in: collection, selecting: [])
            if !orphans.isEmpty { try await store.commit(orphans.map { .delete($0.path) }) }
        }
        return true
    }

    private func isEmpty(_ collection: CollectionPath) async throws -> Bool {
        try await store.documents(in: collection, selecting: []).isEmpty
    }
}
