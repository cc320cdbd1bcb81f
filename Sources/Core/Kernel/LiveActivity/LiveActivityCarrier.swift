/// The push service that carries Live Activities, as its module declares it
/// (``PushAddressFormat/liveActivities``): the service a device's activity tokens
/// belong to, and an ActivityKit push as its wire carries it, whose size a plan fits
/// before anything is stored (``LiveActivityPlan``).
public struct LiveActivityCarrier: Sendable, Hashable {
    public let service: PushServiceID
    /// The most a push's payload may take (a larger one is refused, and so would
    /// every retry of it be).
    public let maxPayloadBytes: Int
    /// A push's payload as sent.
    public let payload: @Sendable (LiveActivityPush) throws -> [UInt8]

    public init(
        service: PushServiceID, maxPayloadBytes: Int, payload: @escaping @Sendable (LiveActivityPush) throws -> [UInt8]
    ) {
        self.service = service
        self.maxPayloadBytes = maxPayloadBytes
        self.payload = payload
    }

    /// Whether `push` fits.
    public func fits(_ push: LiveActivityPush) throws -> Bool {
        try payload(push).count <= maxPayloadBytes
    }

    // One service declares one carrier: its id says which.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.service == rhs.service && lhs.maxPayloadBytes == rhs.maxPayloadBytes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(service)
        hasher.combine(maxPayloadBytes)
    }
}
