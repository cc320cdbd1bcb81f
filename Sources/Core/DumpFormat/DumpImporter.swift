import PushgateCore

/// Imports records into a store in batches of one transaction each: decides for each
/// namespace whether it may be written (empty when first reached, or `merge`),
/// leaves out other namespaces when one is chosen, reports each refused record with
/// where it was, and counts.
public final class DumpImporter {
    /// Thrown with `strict` at the first refused record: records of batches stored
    /// before it stay (the same import run again changes nothing of them).
    public struct Stopped: Error, CustomStringConvertible {
        public let location: String
        public let reason: String
        public var description: String { "\(location): \(reason) (--strict: stopped here)" }
    }

    public typealias Refusal = (_ location: String, _ reason: String) -> Void

    private let transfer: any StoreTransfer
    private let namespace: String?
    private let merge: Bool
    private let strict: Bool
    private let batchSize: Int
    private let onRefusal: Refusal
    private var batch: [(location: String, item: DumpImportItem)] = []
    /// Whether each namespace reached so far may be written.
    private var writableNamespaces: [String: Bool] = [:]
    /// The namespace of each notification imported so far: its deliveries' and expansion's.
    /// A delivery or expansion the store lacks is added whether or not the store had
    /// its notification before (an import interrupted between the two): the store
    /// forgets a delivery only when it prunes it with its notification.
    private var notificationNamespaces: [String: String] = [:]
    /// The batch being written, and what the store makes of it.
    private var storing:
        (items: [(location: String, item: DumpImportItem)], task: Task<[DumpImportOutcome], any Error>)?
    public private(set) var summary = DumpImportSummary()

    public init(
        transfer: any StoreTransfer, namespace: String?, merge: Bool, strict: Bool, batchSize: Int = 5000,
        onRefusal: @escaping Refusal
    ) {
        self.transfer = transfer
        self.namespace = namespace
        self.merge = merge
        self.strict = strict
        self.batchSize = batchSize
        self.onRefusal = onRefusal
    }

    /// Takes one record read at `location` (`line 12`), or why it could not be read.
    public func add(_ record: Result<DumpRecord, DumpError>, at location: String) async throws {
        summary.read += 1
        let parsed: DumpRecord
        switch record {
        case .success(let record): parsed = record
        case .failure(let error):
            try await refuse(at: location, error.description)
            return
        }
        guard let serverKey = try await namespace(of: parsed, at: location) else { return }
        guard serverKey == namespace || namespace == nil else {
            summary.skipped += 1
            return
        }
        if case .notification(let notification) = parsed {
            notificationNamespaces[notification.id] = serverKey
        }
        let mayWrite = try await isWritable(serverKey)
        batch.append((location, DumpImportItem(record: parsed, mayWrite: mayWrite)))
        if batch.count >= batchSize { try await flush() }
    }

    /// Stores what is left; returns the counts.
    public func finish() async throws -> DumpImportSummary {
        try await flush()
        try await settle()
        return summary
    }

    private func namespace(of record: DumpRecord, at location: String) async throws -> String? {
        switch record {
        case .header:
            summary.read -= 1
            return nil
        case .document, .notification: return record.serverKey
        case .delivery, .expansion:
            // A delivery or an expansion always names its notification.
            guard let notificationID = record.notificationID else { return nil }
            return try await dependent(notificationID, at: location)
        }
    }

    /// The namespace of the notification an outbox row belongs to, which must come before it.
    private func dependent(_ notificationID: String, at location: String) async throws -> String? {
        if let serverKey = notificationNamespaces[notificationID] { return serverKey }
        try await refuse(at: location, "its notification '\(notificationID.prefix(40))' is not in the dump before it")
        return nil
    }

    private func isWritable(_ serverKey: String) async throws -> Bool {
        if let writable = writableNamespaces[serverKey] { return writable }
        let writable = try await merge ? true : !transfer.hasDocuments(inNamespace: serverKey)
        writableNamespaces[serverKey] = writable
        return writable
    }

    /// Hands the batch to the store, once the one before it is settled, without
    /// waiting for it: the next batch is read and checked while this one is written,
    /// so reading and writing each keep a core busy.
    private func flush() async throws {
        guard !batch.isEmpty else { return }
        try await settle()
        let items = batch
        batch = []
        batch.reserveCapacity(batchSize)
        let transfer = self.transfer
        let strict = self.strict
        let records = items.map(\.item)
        storing = (items, Task { try await transfer.store(records, allOrNothing: strict) })
    }

    /// Waits for the batch being stored and takes in what became of each record.
    private func settle() async throws {
        guard let (stored, task) = storing else { return }
        storing = nil
        var items = stored
        var outcomes = try await task.value
        // With `strict` a batch with a refusal wrote nothing: what came before the
        // refused record is stored again alone, so that the import stops right there
        // (the batch read meanwhile is dropped).
        if strict, let first = outcomes.firstIndex(where: { $0.refusal != nil }), let reason = outcomes[first].refusal {
            let refusal = (items[first].location, reason)
            items = Array(items[..<first])
            outcomes = items.isEmpty ? [] : try await transfer.store(items.map(\.item), allOrNothing: true)
            count(outcomes)
            try report(at: refusal.0, refusal.1)
        }
        for ((location, _), outcome) in zip(items, outcomes) {
            if let reason = outcome.refusal { try report(at: location, reason) }
        }
        count(outcomes)
    }

    private func count(_ outcomes: [DumpImportOutcome]) {
        for outcome in outcomes {
            switch outcome {
            case .written: summary.written += 1
            case .unchanged: summary.unchanged += 1
            case .refused: break
            }
        }
    }

    /// Refuses the record being read: with `strict`, once everything before it is stored.
    private func refuse(at location: String, _ reason: String) async throws {
        if strict {
            try await flush()
            try await settle()
        }
        try report(at: location, reason)
    }

    private func report(at location: String, _ reason: String) throws {
        summary.refused += 1
        onRefusal(location, reason)
        if strict { throw Stopped(location: location, reason: reason) }
    }
}
