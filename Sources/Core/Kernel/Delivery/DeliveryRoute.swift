/// Where a device's push goes beyond its token: the app it registered for, for an
/// address of a service with environments the one it belongs to, whether
/// its pushes are sealed (``PayloadSealing``), whether its phone can decide an
/// approval (a decision key, issue 73: its approvals carry buttons), and whether its
/// app draws such a push itself (an Android app, issue 83).
///
/// A registration may state the environment (``PushEnvironments``); when it did not,
/// the app's default is tried first and, on its service's refusal, the other one
/// once (``EnvironmentFallback``), and the environment that took it is stored on the
/// device as learned (later pushes go straight there, and may still fall back, since
/// the next token of that installation may come from the other).
public struct DeliveryRoute: Sendable, Hashable {
    /// The app's id (the bundle id the device registered with); `nil`: the default app.
    public var app: String?
    /// The environment to send to first; `nil`: the app's.
    public var environment: PushEnvironment?
    /// The registration stated the environment: a `BadDeviceToken` there is final.
    public var environmentStated: Bool
    /// Sealed for the device's keys, or neutral; `nil`: in clear (unless its app is
    /// sealed only, ``PushSealing/sealedOnly``).
    public var sealing: PayloadSealing?
    /// The phone registered a decision key: its approvals carry the actions that
    /// answer them (issue 73).
    public var decides: Bool
    /// The device's app draws a push it can answer from the push's data (an Android
    /// app: `platform: android`): such a push goes to it data-only, since a push
    /// with a `notification` goes straight to Android's tray, with no buttons.
    public var drawsItsOwn: Bool

    public init(
        app: String? = nil, environment: PushEnvironment? = nil, environmentStated: Bool = false,
        sealing: PayloadSealing? = nil, decides: Bool = false, drawsItsOwn: Bool = false
    ) {
        self.app = app
        self.environment = environment
        self.environmentStated = environmentStated && environment != nil
        self.sealing = sealing
        self.decides = decides
        self.drawsItsOwn = drawsItsOwn
    }

    /// The app's default environment, and nothing stated.
    public static let unstated = DeliveryRoute()

    /// May the other environment be tried after its service's refusal?
    public var mayFallBack: Bool { !environmentStated }

    /// The same app and sealing, delivered in `environment`: learned, not stated.
    public func learned(_ environment: PushEnvironment) -> DeliveryRoute {
        DeliveryRoute(
            app: app, environment: environment, environmentStated: false, sealing: sealing, decides: decides,
            drawsItsOwn: drawsItsOwn)
    }

    /// As the outbox stores it: `nil` for ``unstated``, else the environment (with
    /// `!` when stated), `?` when the phone decides, `^` when its app draws its own,
    /// `~` and the sealing when there is one (``PayloadSealing``'s text, never holding
    /// a space), a space, and the app (`"sandbox! com.example.app"`,
    /// `" com.example.app"`, `"?~BCVx….BTBZ… com.example.app"`, `"?^ com.example.android"`).
    public var stored: String? {
        guard self != .unstated else { return nil }
        return (environment?.rawValue ?? "") + (environmentStated ? "!" : "") + (decides ? "?" : "")
            + (drawsItsOwn ? "^" : "") + (sealing.map { "~" + $0.stored } ?? "") + " " + (app ?? "")
    }

    /// A stored route; `nil` reads as ``unstated``. Text of another form is
    /// corruption: `nil`.
    public init?(stored: String?) {
        guard let stored else {
            self = .unstated
            return
        }
        guard let space = stored.firstIndex(of: " ") else { return nil }
        var environment = stored[..<space]
        var sealing: PayloadSealing?
        if let tilde = environment.firstIndex(of: "~") {
            guard let parsed = PayloadSealing(stored: environment[environment.index(after: tilde)...]) else {
                return nil
            }
            sealing = parsed
            environment = environment[..<tilde]
        }
        let drawsItsOwn = environment.hasSuffix("^")
        if drawsItsOwn { environment = environment.dropLast() }
        let decides = environment.hasSuffix("?")
        if decides { environment = environment.dropLast() }
        let stated = environment.hasSuffix("!")
        if stated { environment = environment.dropLast() }
        let app = stored[stored.index(after: space)...]
        if environment.isEmpty {
            guard !stated else { return nil }
            self.init(
                app: app.isEmpty ? nil : String(app), sealing: sealing, decides: decides, drawsItsOwn: drawsItsOwn)
            return
        }
        guard let parsed = PushEnvironment(rawValue: String(environment)) else { return nil }
        self.init(
            app: app.isEmpty ? nil : String(app), environment: parsed, environmentStated: stated, sealing: sealing,
            decides: decides, drawsItsOwn: drawsItsOwn)
    }
}
