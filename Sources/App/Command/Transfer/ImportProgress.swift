import Foundation
import PushgateCore
import PushgateDumpFormat
import UnixSignals

/// What an import has done so far, for its summary line whatever stops it: the
/// importer's counts, the signal that interrupted it if one did, and who prints the
/// summary (the command once the import is over, or the signal's handler when the
/// import does not stop in time).
final class ImportProgress: @unchecked Sendable {
    // The import's task writes while the signal's task may read: a lock keeps them apart.
    private let lock = NSLock()
    private var importer: DumpImporter?
    private var published = DumpImportSummary()
    private var signal: UnixSignal?
    private var summaryClaimed = false

    /// The importer whose counts the summary shows once its task is over.
    func follow(_ importer: DumpImporter) {
        lock.withLock { self.importer = importer }
    }

    /// The counts after each record, for a summary printed while the import still runs.
    func publish(_ summary: DumpImportSummary) {
        lock.withLock { published = summary }
    }

    func interrupted(by signal: UnixSignal) {
        lock.withLock { self.signal = signal }
    }

    /// The counts: the importer's own once its task is over, else the last published.
    func summary(importOver: Bool) -> DumpImportSummary {
        lock.withLock { importOver ? importer?.summary ?? published : published }
    }

    /// Why the import stopped early when a signal stopped it.
    var interruption: String? {
        lock.withLock { signal.map { "interrupted by \($0)" } }
    }

    /// Whether the caller is the one to print the summary: true once.
    func claimSummary() -> Bool {
        lock.withLock {
            defer { summaryClaimed = true }
            return !summaryClaimed
        }
    }
}
