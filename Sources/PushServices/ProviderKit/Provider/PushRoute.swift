import PushgateCore

/// One leaf of the gateway's routing table: the provider that sends one app's
/// devices of one push service, in one of the service's environments. A service's
/// module makes its routes (one per environment it has, else one); the routing table
/// looks each device's up by ``Key``.
public struct PushRoute: Sendable {
    /// Where a device's push goes: its app, its token's service, and for a service
    /// with environments (``PushAddressFormat/environments``) the environment its
    /// route states, else the app's default one; `nil` for a service without.
    public struct Key: Hashable, Sendable {
        public let app: String
        public let service: PushServiceID
        public let environment: PushEnvironment?

        public init(app: String, service: PushServiceID, environment: PushEnvironment? = nil) {
            self.app = app
            self.service = service
            self.environment = environment
        }

        /// The same app and service in `environment`.
        public func `in`(_ environment: PushEnvironment) -> Key {
            Key(app: app, service: service, environment: environment)
        }
    }

    public let key: Key
    public let provider: any PushProvider
    /// Devices whose route states no environment go to this one.
    public let isDefaultEnvironment: Bool

    public init(_ key: Key, provider: any PushProvider, isDefaultEnvironment: Bool = true) {
        self.key = key
        self.provider = provider
        self.isDefaultEnvironment = isDefaultEnvironment
    }
}
