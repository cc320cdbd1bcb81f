import Foundation

/// Work that blocks its thread (a command run to its end), run on a thread of its
/// own: the cooperative pool has one thread per core, and tests holding them would
/// stall every other suite's in-process emulators and timers. A new thread each time,
/// not Dispatch's global pool: that pool grows slowly, and a short `curl` queued
/// behind other tests' long commands waited seconds (a rate-limit test saw its
/// bucket refill meanwhile).
enum BlockingWork {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}
