import Foundation

/// The time `pushgate hook` may take at most, after which `expire` ends the process
/// whatever blocks it (standard input never closed, a stalled disk, a gateway that
/// does not answer). A permission request extends it by its wait for a decision.
final class HookDeadline: @unchecked Sendable {
    private let lock = NSLock()
    private var seconds: Double
    private let started = DispatchTime.now()
    private let expire: @Sendable (Double) -> Void

    init(seconds: Double, expire: @escaping @Sendable (Double) -> Void) {
        self.seconds = seconds
        self.expire = expire
        schedule(after: seconds)
    }

    /// Moves the end `more` seconds later.
    func extend(by more: Double) {
        lock.withLock { seconds += more }
    }

    private func schedule(after delay: Double) {
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            let total = lock.withLock { seconds }
            // Extended meanwhile: the rest of the time first.
            guard elapsed >= total else { return schedule(after: total - elapsed) }
            expire(total)
        }
    }
}
