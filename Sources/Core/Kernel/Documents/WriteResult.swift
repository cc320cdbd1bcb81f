/// What one write of a batch did.
public struct WriteResult: Sendable, Hashable {
    /// The document existed before this write.
    public let existed: Bool
    /// The write was made (its precondition held).
    public let applied: Bool

    public init(existed: Bool, applied: Bool) {
        self.existed = existed
        self.applied = applied
    }
}
