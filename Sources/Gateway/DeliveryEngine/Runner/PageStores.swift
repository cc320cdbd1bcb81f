import NIOConcurrencyHelpers

/// How an expansion's pages, tried side by side, are stored: in page order, so that
/// the stored cursor never passes a page not stored (a worker taking the expansion
/// over goes on from the cursor; a page skipped there would be a page of devices
/// never reached), and the pages tried while the one before them was being stored
/// all in the next write, together.
///
/// One write for several pages: with PostgreSQL a page's store is a round trip and a
/// commit (7 ms at 500 devices, measured), longer than the time between two pages'
/// sends, so that stores one page at a time bounded the fan-out. A store's writer is
/// the page whose turn it is; when its write is over, the first page of the next run
/// writes that run.
final class PageStores<Page: Sendable>: Sendable {
    enum Turn {
        /// The page is the first of the next run: it writes the run.
        case write
        /// The page's run was written, or given up: whether the page was stored.
        case ended(Result<Bool, any Error>)
    }

    struct Waiting {
        /// `nil`: the page's try failed; it is not stored, nor is any page after it.
        let page: Page?
        /// `nil` for the page writing.
        let continuation: CheckedContinuation<Turn, Never>?
    }

    /// Internal, not private: the tests read it (`PageStoresTests`).
    struct State {
        /// The first page not stored, nor given up.
        var next = 0
        /// Whether every page before `next` was stored.
        var unbroken = true
        /// Whether a run is being written.
        var writing = false
        var waiting: [Int: Waiting] = [:]
    }

    let state = NIOLockedValueBox(State())
    /// Stores pages, in their order; `false` when they could not be (the expansion lost).
    private let write: @Sendable ([Page]) async throws -> Bool

    init(write: @escaping @Sendable ([Page]) async throws -> Bool) {
        self.write = write
    }

    /// Stores `page`, the expansion's page `number`, once every page before it was
    /// stored, with the pages after it that are ready by then; `nil` for a page whose
    /// try failed, which ends its turn unstored. `true` when the page was stored;
    /// throws what the write threw. Not cancellable: a page tried is stored even
    /// while the gateway shuts down, and every page numbered must come here once.
    func store(_ page: Page?, number: Int) async throws -> Bool {
        let turn = await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
            let writes = state.withLockedValue { state in
                guard !state.writing, state.next == number else {
                    state.waiting[number] = Waiting(page: page, continuation: continuation)
                    return false
                }
                state.writing = true
                state.waiting[number] = Waiting(page: page, continuation: nil)
                return true
            }
            if writes { continuation.resume(returning: .write) }
        }
        switch turn {
        case .ended(let result): return try result.get()
        case .write: return try await writeRun(from: number).get()
        }
    }

    /// Writes the pages waiting from `first` (the next page) on, up to the first gap
    /// or a failed page; ends their turns and hands the next run to its first page.
    /// The result for `first`.
    private func writeRun(from first: Int) async -> Result<Bool, any Error> {
        let (run, unbroken) = state.withLockedValue { state in
            var run: [Waiting] = []
            while let waiting = state.waiting.removeValue(forKey: first + run.count) {
                run.append(waiting)
                if waiting.page == nil { break }
            }
            return (run, state.unbroken)
        }
        let pages = run.compactMap(\.page)
        let written: Result<Bool, any Error>
        if unbroken, !pages.isEmpty {
            do {
                written = .success(try await write(pages))
            } catch {
                written = .failure(error)
            }
        } else {
            written = .success(false)
        }
        let failedPage = run.last?.page == nil
        let nextWriter = state.withLockedValue { state -> CheckedContinuation<Turn, Never>? in
            state.next = first + run.count
            state.unbroken = state.unbroken && ((try? written.get()) ?? false) && !failedPage
            guard let waiting = state.waiting[state.next], let continuation = waiting.continuation else {
                state.writing = false
                return nil
            }
            state.waiting[state.next] = Waiting(page: waiting.page, continuation: nil)
            return continuation
        }
        for (offset, waiting) in run.enumerated() where offset > 0 {
            waiting.continuation?.resume(returning: .ended(waiting.page == nil ? .success(false) : written))
        }
        nextWriter?.resume(returning: .write)
        return run.first?.page == nil ? .success(false) : written
    }

    /// Whether a page was left unstored (its expansion lost, or its write failed):
    /// no later page may be stored, nor read.
    var broken: Bool { state.withLockedValue { !$0.unbroken } }
}
