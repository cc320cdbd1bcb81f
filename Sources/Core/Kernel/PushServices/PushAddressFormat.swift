/// What a push service's module tells the rest of the gateway about its devices'
/// addresses: its id, the registration field that carries one, how a valid one
/// reads, and whether its addresses belong to one of the service's environments.
/// The registration, the subscriptions look-up, the device record, the selection
/// and the dump format handle any service through these, naming none
/// (``PushAddressFormats``). The document field is the id's (``PushServiceID/documentField``).
public struct PushAddressFormat: Sendable {
    public let service: PushServiceID
    /// The device document's field that holds the address (`apnsToken`): spelt once
    /// here, not again for every device a fan-out reads.
    public let documentField: String
    /// `APNs`, `FCM`: what messages call it.
    public let name: String
    /// The `registerSubscription` body's field (`apns_token`).
    public let registrationField: String
    /// How a stored address reads, for the dump's errors ("64 to 200 lower-case hex
    /// digits").
    public let storedForm: String
    /// Its addresses each belong to one environment of the service (APNs: production
    /// or sandbox): how a registration states one, where a device keeps it, what a
    /// refusal in a guessed one does. `nil` for a service without environments.
    public let environments: PushEnvironments?
    /// The service carries Live Activities (APNs: ActivityKit pushes to a device's
    /// activity tokens); `nil` for one that does not.
    public let liveActivities: LiveActivityCarrier?
    /// Its pushes are end-to-end encrypted by the service's own protocol (Web Push:
    /// RFC 8291, for the subscription's keys): a device's `payload_keys` are not
    /// used, and a sealed-only app (``PushSealing/sealedOnly``) takes its
    /// registrations without them.
    public let sealsItself: Bool
    /// The service knows a push by the id the gateway gives each delivery (APNs'
    /// `apns-id`): `eventStatus` names it as the push's message id (issue 75).
    public let namesPushByItsID: Bool
    /// The service lets a push show nothing (APNs, FCM: a silent update the app
    /// handles); Web Push does not (Safari revokes the permission). An installation
    /// whose app shows the agent's chat then gets no push at all (issue 75).
    public let allowsSilentPushes: Bool
    /// The setting that configures the service's provider, which the log names when
    /// devices of the service have none to go through (`PUSHGATE_APNS_KEY_PATH`).
    public let configuredBy: String
    /// The address a registration body gives in `field` (the request error naming
    /// the field when it is not one), as stored; `nil` when the field is absent.
    public let registered: @Sendable (_ body: RequestFields, _ field: String) throws(FunctionError) -> String?
    /// The stored address `text` names (a look-up by token: an APNs token in any case
    /// of its hex digits), `nil` when it names none.
    public let stored: @Sendable (_ text: String) -> String?
    /// A check of a registered address that needs the network (where a Web Push
    /// endpoint's name resolves), made after the body's checks and before anything is
    /// stored; `nil` when the rule alone decides.
    public let admitted: (@Sendable (_ stored: String) async throws(FunctionError) -> Void)?
    /// What diagnostics show of a stored address: never the whole of it. The first 8
    /// characters unless the service says otherwise (Web Push: the endpoint's origin,
    /// its path being a capability).
    public let preview: @Sendable (_ stored: String) -> String

    public init(
        service: PushServiceID, name: String, registrationField: String, storedForm: String,
        environments: PushEnvironments? = nil, liveActivities: LiveActivityCarrier? = nil, sealsItself: Bool = false,
        namesPushByItsID: Bool = false,
        allowsSilentPushes: Bool = true, configuredBy: String,
        registered: @escaping @Sendable (_ body: RequestFields, _ field: String) throws(FunctionError) -> String?,
        stored: @escaping @Sendable (_ text: String) -> String?,
        admitted: (@Sendable (_ stored: String) async throws(FunctionError) -> Void)? = nil,
        preview: @escaping @Sendable (_ stored: String) -> String = { String($0.prefix(8)) }
    ) {
        self.service = service
        self.documentField = service.documentField
        self.name = name
        self.registrationField = registrationField
        self.storedForm = storedForm
        self.environments = environments
        self.liveActivities = liveActivities
        self.sealsItself = sealsItself
        self.namesPushByItsID = namesPushByItsID
        self.allowsSilentPushes = allowsSilentPushes
        self.configuredBy = configuredBy
        self.registered = registered
        self.stored = stored
        self.admitted = admitted
        self.preview = preview
    }

    /// What a device of the service fails with while the gateway has no provider for
    /// it (`no_apns_provider`): no retry can fix it.
    public var unconfiguredReason: String { service.unconfiguredReason }

    /// Whether a route may go with an address of this service: its environment, when
    /// it names one, is one the service declares (a dump's delivery naming `staging`
    /// is refused where it is read, not failed when it is sent).
    public func admits(_ route: DeliveryRoute) -> Bool {
        guard let environment = route.environment else { return true }
        return environments?.stored(environment.rawValue) != nil
    }

    /// Whether `text` is an address as stored.
    public func isStored(_ text: String) -> Bool { stored(text) == text }

    /// The address `body` registers for this service, or `nil`.
    public func address(in body: RequestFields) throws(FunctionError) -> String? {
        try registered(body, registrationField)
    }
}
