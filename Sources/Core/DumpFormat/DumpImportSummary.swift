import PushgateCore

/// The counts an import ends with, printed as its last line.
public struct DumpImportSummary: Sendable, Hashable, CustomStringConvertible {
    /// Records read (the header not counted).
    public var read = 0
    public var written = 0
    public var unchanged = 0
    public var refused = 0
    /// Records of other namespaces than `--namespace`.
    public var skipped = 0

    public init() {}

    public var description: String {
        let skippedText = skipped > 0 ? ", \(skipped) of other namespaces skipped" : ""
        return "\(read) records read, \(written) written, \(unchanged) unchanged, \(refused) refused\(skippedText)"
    }
}
