/// What a push service whose addresses each belong to one of its environments
/// declares of them (APNs: a token works only in the environment it came from): the
/// environments, how a registration states one, the device document's fields that
/// keep it, and what the routing table does when a guessed one is refused.
///
/// A registration may state the environment (`apns_environment`); when it did not,
/// the app's default environment is tried first and, on the refusal the
/// ``fallback`` names, the other once, and the environment that took the address is
/// stored on the device as learned.
public struct PushEnvironments: Sendable {
    /// Every environment, in the order the other one is looked for.
    public let all: [PushEnvironment]
    /// The `registerSubscription` field that states one (`apns_environment`); the
    /// agent's devices page shows the stored one under it too.
    public let registrationField: String
    /// The words a registration may give, for its error ("production, sandbox or development").
    public let registrationWords: String
    /// The device document's field that keeps the environment (`apnsEnvironment`).
    public let documentField: String
    /// The device document's flag that the environment was learned from a push, not
    /// stated (`apnsEnvironmentLearned`).
    public let learnedField: String
    /// What the routing table does when the environment guessed for an address is refused.
    public let fallback: EnvironmentFallback
    /// The environment a registration's words name (each spelling the service
    /// accepts); `nil` for other words.
    public let registered: @Sendable (_ words: String) -> PushEnvironment?

    public init(
        all: [PushEnvironment], registrationField: String, registrationWords: String, documentField: String,
        learnedField: String, fallback: EnvironmentFallback,
        registered: @escaping @Sendable (_ words: String) -> PushEnvironment?
    ) {
        self.all = all
        self.registrationField = registrationField
        self.registrationWords = registrationWords
        self.documentField = documentField
        self.learnedField = learnedField
        self.fallback = fallback
        self.registered = registered
    }

    /// The environment a device document keeps as `text`; `nil` for another word.
    public func stored(_ text: String) -> PushEnvironment? {
        all.first { $0.rawValue == text }
    }

    /// The environment tried after `environment` refused an address.
    public func other(than environment: PushEnvironment) -> PushEnvironment? {
        all.first { $0 != environment }
    }

    /// The environment a registration body states in ``registrationField``, `nil`
    /// when it states none; a request error for words the service does not take.
    public func stated(in body: RequestFields) throws(FunctionError) -> PushEnvironment? {
        guard let words = try body.optionalString(registrationField) else { return nil }
        // Exact words, as the schema's enum: a typo is an error, not a guess.
        guard let environment = registered(words) else {
            throw .invalidArgument(
                "'\(registrationField)' must be \(registrationWords)", field: registrationField)
        }
        return environment
    }
}
