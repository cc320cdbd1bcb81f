import Foundation

/// Work that blocks its thread (a command run to its end), run on a thread of its
/// own: the cooperative pool has one thread per core, and tests holding them would
/// stall every other suite's in-process emulators and timers. A new thread each time
/// rather than Dispatch's global pool, which is slow to add threads when the ones it
/// has are blocked: a short `curl` must not queue behind other tests' long commands.
enum BlockingWork {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}
