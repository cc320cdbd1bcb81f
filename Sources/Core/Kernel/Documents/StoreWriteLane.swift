/// Which of a store's writes go first when several wait for its writer. A request
/// that a caller waits on is `interactive`; work that writes much and that nobody
/// waits on so closely (a token spread to an installation's other devices, a
/// housekeeping round) is `bulk`. A store with one writer (SQLite) never lets a bulk
/// write share a transaction with others, and takes the two lanes in turn while
/// both wait: a registration queued behind any number of another namespace's bulk
/// writes waits for one of them at most.
public enum StoreWriteLane: Sendable {
    case interactive
    case bulk

    /// The lane of the current task's writes.
    @TaskLocal public static var current: StoreWriteLane = .interactive
}
