import Logging
import PushgateCore

/// What a push service's module gives the gateway beside its address format: its
/// settings, and how one app's settings become its leaves of the routing table. The
/// installed ones are listed once (`PushServicePlugins.installed`, in
/// `PushgateInstalledServices`); the server's catalogue of settings, its configuration and its
/// routing table go through them, naming no service.
public protocol PushServicePlugin: Sendable {
    /// Its addresses (``PushAddressFormat``).
    var format: PushAddressFormat { get }
    /// Its settings, in the order help and `pushgate config` show them.
    var settings: [AnySetting] { get }
    /// Those of its settings one app of `apps:` may give for itself.
    var perAppSettings: [AnySetting] { get }
    /// What an app that gives one of those settings no value gets, where that is not
    /// the gateway's value.
    var perAppRules: [PerAppRule] { get }
    /// Whether `pushgate doctor` checks it once for the gateway rather than for each
    /// app (Web Push: one VAPID key serves every app).
    var checkedOnce: Bool { get }

    /// Its address format as the gateway's settings shape what a registration may
    /// give (Web Push's endpoint rules); ``format`` unless the service has such settings.
    func format(from settings: some SettingReading) throws(ConfigurationError) -> PushAddressFormat

    /// One app's configuration of the service, read from `settings` (the gateway's,
    /// or one app's over them) and checked, its key files read once; `nil` when the
    /// service is not configured; one line naming the setting at fault.
    func prepare(from settings: some SettingReading) throws(ConfigurationError) -> PreparedPushService?

    /// `pushgate doctor`'s lines for the service as `settings` configure it (the
    /// gateway's, or one app's): its key or account read, a token signed or fetched,
    /// its host resolved and a connection opened; one `skip` line when it is not
    /// configured, naming what its devices then fail with. Sends no push.
    func doctorChecks(_ settings: some SettingReading, logger: Logger) async -> [DoctorCheck]
}

extension PushServicePlugin {
    public var perAppRules: [PerAppRule] { [] }
    public var checkedOnce: Bool { false }

    public func format(from settings: some SettingReading) throws(ConfigurationError) -> PushAddressFormat { format }
}
