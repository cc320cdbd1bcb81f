#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's limit on open file descriptors, which every connection takes one
/// of. Many systems start a process with a soft limit of 1,024 however high the
/// hard limit is; the gateway raises its own to the hard limit at start (as Go
/// programs do), and keeps the connection cap below what is left.
public enum DescriptorLimit {
    /// Descriptors kept for everything but client connections: the database, the
    /// push services' connections, the metrics listener, logs.
    public static let reserve = 128

    /// Raises the soft limit to the hard one (systemd's `LimitNOFILE`, Docker's
    /// `ulimits`); the soft limit in effect afterwards, or `nil` when unknown.
    @discardableResult
    public static func raise() -> Int? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)  // unlimited (all ones) clamps to Int.max
    }

    /// The connection cap that fits `descriptors`: `wanted`, or less, leaving the reserve.
    public static func connectionCap(wanted: Int, descriptors: Int) -> Int {
        min(wanted, max(descriptors - reserve, 16))
    }
}
