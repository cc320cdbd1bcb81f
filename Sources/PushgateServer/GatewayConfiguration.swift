/// What `pushgate serve` needs to start, read once at start.
public struct GatewayConfiguration: Sendable, Hashable {
    /// The address to listen on (`PUSHGATE_HOST`).
    public var host: String
    /// The port to listen on (`PUSHGATE_PORT`); 0 picks a free one.
    public var port: Int
    /// The SQLite file (`PUSHGATE_DATABASE`), created when missing.
    public var databasePath: String
    /// APNs delivery (`PUSHGATE_APNS_*`); without a key, pushes go to the log.
    public var apns: APNsSettings
    /// Outbox, retries and shutdown (`PUSHGATE_TRIGGER_WAIT`, `PUSHGATE_OUTBOX_*`, …).
    public var delivery: DeliverySettings

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        databasePath: String = "pushgate.sqlite",
        apns: APNsSettings = APNsSettings(),
        delivery: DeliverySettings = DeliverySettings()
    ) {
        self.host = host
        self.port = port
        self.databasePath = databasePath
        self.apns = apns
        self.delivery = delivery
    }
}
