/// Work that must be over by a deadline, whether or not it heeds cancellation.
public enum Deadline {
    /// `operation`'s value, or `nil` when `limit` passes first (or the caller is
    /// cancelled): the operation is then cancelled and left to end on its own, its
    /// value dropped. It runs in a task of its own so that a library call that ignores
    /// cancellation for a while cannot hold the caller past the limit.
    public static func run<Value: Sendable>(
        within limit: Duration, _ operation: @escaping @Sendable () async -> Value
    ) async -> Value? {
        let completion = Completion<Value>()
        let task = Task { completion.complete(await operation()) }
        let value = await completion.wait(upTo: limit)
        if value == nil { task.cancel() }
        return value
    }
}
