/// One of a push service's environments, as its module names it (APNs: `production`,
/// `sandbox`). The gateway carries it on a device's route, in the routing table's
/// keys and in what a try learned, and never reads it: what environments a service
/// has, how a registration states one and where a device keeps it is the service's
/// address format's business (``PushEnvironments``).
public struct PushEnvironment: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    /// A lower-case letter, then up to 15 lower-case letters or digits (the form a
    /// stored route keeps it in); `nil` for any other text.
    public init?(rawValue: String) {
        guard PushServiceID(rawValue: rawValue) != nil else { return nil }
        self.rawValue = rawValue
    }

    /// A service's own environment, spelt once in its module.
    public init(declared rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
}
