import Foundation
import PushgateSealing

/// The app's half of the seed's design: a stable installation id, each server's push
/// secret, a registration when a chat opens, every known chat registered again when
/// the push token changes, and a sign-out. What the gateway does not answer is kept
/// in the store and sent when it answers again (the worker retries on its own with a
/// doubling wait, and at once after any call that got through).
///
/// ```swift
/// let push = SubscriptionManager(
///     gateway: PushgateGateway(baseURL: URL(string: "https://push.example.com")!),
///     store: KeychainStore(), options: .init(platform: .ios, bundleID: Bundle.main.bundleIdentifier))
/// try await push.enablePush(forServer: server.id, secret: secretFromTheProxyEnvFile)
/// try await push.tokenChanged(to: .fcm(fcmToken))                 // Messaging's delegate
/// try await push.chatOpened(serverID: server.id, cwd: project.path, agentDisplayName: "\(project.name)@\(server.name)")
/// ```
public actor SubscriptionManager {
    public struct Options: Sendable {
        public var platform: Registration.Platform?
        public var appVersion: String?
        public var bundleID: String?
        public var apnsEnvironment: Registration.APNsEnvironment?
        /// Pushes are sealed (issue 63): every registration carries this installation's
        /// payload keys (``SubscriptionManager/payloadKeys()``), and the app opens its
        /// pushes in a Notification Service Extension (``PushgateNotification/init(sealed:keys:)``);
        /// without one, its pushes show the gateway's neutral text.
        public var sealsPushes: Bool
        /// Approvals are answered on this phone (issue 73): every registration carries
        /// this installation's decision key (``SubscriptionManager/decisionKey()``),
        /// the approvals show Allow and Deny, and ``SubscriptionManager/decide(eventID:_:message:serverKey:)``
        /// sends the person's answer.
        public var decides: Bool
        /// What the person calls this device (`UIDevice.current.name`, issue 82), sent
        /// with every registration: what `pushgate pair` and the console show.
        public var deviceName: String?
        /// A chat opened again within this time, nothing else changed, is not
        /// registered again.
        public var coalescingWindow: Duration
        /// The first wait before sending again what the gateway did not answer; it
        /// doubles up to `retryCap`.
        public var retryBase: Duration
        public var retryCap: Duration

        public init(
            platform: Registration.Platform? = nil, appVersion: String? = nil, bundleID: String? = nil,
            apnsEnvironment: Registration.APNsEnvironment? = nil, sealsPushes: Bool = false, decides: Bool = false,
            deviceName: String? = nil, coalescingWindow: Duration = .seconds(60),
            retryBase: Duration = .seconds(2), retryCap: Duration = .seconds(300)
        ) {
            self.platform = platform
            self.appVersion = appVersion
            self.bundleID = bundleID
            self.apnsEnvironment = apnsEnvironment
            self.sealsPushes = sealsPushes
            self.decides = decides
            self.deviceName = deviceName
            self.coalescingWindow = coalescingWindow
            self.retryBase = retryBase
            self.retryCap = retryCap
        }
    }

    /// What became of a registration.
    public enum Outcome: Sendable, Equatable {
        case registered(RegistrationAnswer)
        /// The same registration was made within the coalescing window: not sent again.
        case coalesced
        /// No push token yet: registered once ``tokenChanged(to:)`` gives one.
        case waitingForToken
        /// Push is not enabled for the server: no secret stored for it.
        case noSecret
        /// The gateway did not answer: kept, and sent when it answers again.
        case queued(PushgateError)
        /// The gateway refused it (a limit reached, say): not kept.
        case refused(PushgateError)
    }

    /// What became of a sign-out.
    public enum SignOutOutcome: Sendable, Equatable {
        case signedOut(UnregisterInstallationAnswer)
        /// The server had no secret here: nothing to do.
        case notEnabled
        case queued(PushgateError)
        case refused(PushgateError)
    }

    private let gateway: PushgateGateway
    private let store: any SecureStore
    private let options: Options
    private let ledger: SubscriptionLedger
    private var token: PushToken?
    /// The registrations made lately, for coalescing.
    private var recent: [ChatLocation: (registration: Registration, at: ContinuousClock.Instant)] = [:]
    private var retrying: Task<Void, Never>?

    public init(gateway: PushgateGateway, store: any SecureStore, options: Options = Options()) {
        self.gateway = gateway
        self.store = store
        self.options = options
        self.ledger = SubscriptionLedger(store: store)
    }

    // MARK: - What the app holds

    /// This installation's id: made once (a UUID), then kept in the store.
    public func installationID() throws -> String {
        if let id = try store.string(forKey: StoreKey.installationID) { return id }
        let id = UUID().uuidString.lowercased()
        try store.set(id, forKey: StoreKey.installationID)
        return id
    }

    /// The keys this installation's pushes are sealed for: made once, then kept in
    /// the store (where the app's Notification Service Extension reads them:
    /// ``PayloadKeyPair/stored(in:)``).
    public func payloadKeys() throws -> PayloadKeyPair {
        if let kept = try PayloadKeyPair.stored(in: store) { return kept }
        let keys = PayloadKeyPair()
        try store.set(keys.stored, forKey: StoreKey.payloadKeys)
        return keys
    }

    /// The key this installation decides with: made once (in the Secure Enclave where
    /// there is one), then kept in the store.
    public func decisionKey() throws -> DecisionKeyPair {
        if let kept = try store.string(forKey: StoreKey.decisionKey).flatMap(DecisionKeyPair.init(stored:)) {
            return kept
        }
        let key = DecisionKeyPair()
        try store.set(key.stored, forKey: StoreKey.decisionKey)
        return key
    }

    /// Answers an approval from this phone (issue 73): the decision signed with
    /// ``decisionKey()`` and sent to the server whose key `serverKey` is (the push's
    /// `server_key`); without it, to each server push is enabled for until one knows
    /// the event. `message`: the reason given to the agent (at most 1,000 characters);
    /// `suggestion`: the one an `allowAlways` applies (issue 84: 0, the one offered).
    public func decide(
        eventID: String, _ decision: SignedDecision.Decision, message: String? = nil, suggestion: Int? = nil,
        serverKey: String? = nil, now: Date = Date()
    ) async throws -> DecisionAnswer {
        let secrets = try secrets().values.filter { secret in
            serverKey.map { PushgateKeys.serverKey(secret: secret) == $0 } ?? true
        }.sorted()
        guard !secrets.isEmpty else { throw PushgateError.invalidRequest("push is not enabled for that server") }
        let key = try decisionKey()
        var lastError = PushgateError.invalidRequest("no server knows the event")
        for secret in secrets {
            let signed = try key.sign(
                serverKey: PushgateKeys.serverKey(secret: secret), eventID: eventID,
                installationID: try installationID(),
                decision: decision, signedAt: Int64(now.timeIntervalSince1970), message: message,
                scope: decision == .allowAlways ? String(suggestion ?? 0) : nil)
            do {
                return try await gateway.decide(signed, secret: secret)
            } catch {
                // Another server's event: the next one is asked.
                guard case .gateway(let answer) = error, answer.httpStatus == 404 else { throw error }
                lastError = error
            }
        }
        throw lastError
    }

    /// Sends the agent of `cwd` on server `serverID` words from this phone, any time
    /// (issue 84): signed with ``decisionKey()`` over `say:<agent key>`, under a new
    /// message id, so that only that agent hears them — and only where this phone is
    /// paired. A running `pushgate channel` hands them to the session within a second;
    /// else they wait at `GET /replies`. Retrying with the same `messageID` after a lost
    /// answer is safe.
    @discardableResult
    public func say(
        _ words: String, toAgentAt cwd: String, serverID: String, messageID: String = UUID().uuidString.lowercased(),
        now: Date = Date()
    ) async throws -> MessageAnswer {
        guard let secret = try secret(forServer: serverID) else {
            throw PushgateError.invalidRequest("push is not enabled for that server")
        }
        let signed = try decisionKey().sign(
            serverKey: PushgateKeys.serverKey(secret: secret), eventID: messageID, installationID: try installationID(),
            decision: .say, signedAt: Int64(now.timeIntervalSince1970), message: words,
            scope: PushgateKeys.agentKey(cwd: cwd))
        return try await gateway.say(signed, cwd: cwd, secret: secret)
    }

    /// Pairs this phone with an agent's machine (issue 82): `link` is what `pushgate
    /// pair` shows there (its QR code, `pushgate://pair?…`). The pairing and its code
    /// are signed with ``decisionKey()`` and sent to this manager's gateway — never to
    /// the gateway the link names, which a code from anywhere could point elsewhere —
    /// with each server's secret until one knows the pairing. Then compare
    /// ``DecisionKeyPair/fingerprint`` with what `pushgate pair` prints.
    public func pair(link: PairingLink, now: Date = Date()) async throws -> PairingAnswer {
        let secrets = try secrets().values.sorted()
        guard !secrets.isEmpty else { throw PushgateError.invalidRequest("push is not enabled for any server") }
        let key = try decisionKey()
        var lastError = PushgateError.invalidRequest("no server knows the pairing")
        for secret in secrets {
            let signed = try key.signPairing(
                link, serverKey: PushgateKeys.serverKey(secret: secret), installationID: try installationID(),
                signedAt: Int64(now.timeIntervalSince1970))
            do {
                return try await gateway.completePairing(signed, secret: secret)
            } catch {
                // Another server's pairing: the next one is asked.
                guard case .gateway(let answer) = error, answer.httpStatus == 404 else { throw error }
                lastError = error
            }
        }
        throw lastError
    }

    /// Pairs this phone with an agent's machine by the code its person typed (issue 82):
    /// there is no link to say which pairing, so the code is signed for each pairing
    /// open under each server push is enabled for; only the machine that made the code
    /// pairs this phone. Answers how many pairings it completed.
    public func pair(code: PairingCode, now: Date = Date()) async throws -> Int {
        let key = try decisionKey()
        var completed = 0
        for secret in try secrets().values.sorted() {
            let serverKey = PushgateKeys.serverKey(secret: secret)
            for pairing in try await gateway.openPairings(secret: secret).pairings {
                let signed = try key.signPairing(
                    PairingLink(gateway: gateway.baseURL.absoluteString, pairingID: pairing.pairingID, code: code),
                    serverKey: serverKey, installationID: try installationID(),
                    signedAt: Int64(now.timeIntervalSince1970))
                do {
                    _ = try await gateway.completePairing(signed, secret: secret)
                    completed += 1
                } catch {
                    // Closed meanwhile, or full: the others are still completed.
                    guard case .gateway = error else { throw error }
                }
            }
        }
        return completed
    }

    /// Tells the server whose key `serverKey` is (the push's `server_key`) that the
    /// pushes of `eventIDs` reached this phone (`delivered`: from the app's
    /// Notification Service Extension) or were opened (`opened`: as the person taps
    /// one), issue 75; `eventStatus` shows it. At most 100 events a call.
    public func confirm(_ kind: PushgateNotification.Receipt, eventIDs: [String], serverKey: String) async throws
        -> ReceiptsAnswer
    {
        guard let secret = try secrets().values.first(where: { PushgateKeys.serverKey(secret: $0) == serverKey }) else {
            throw PushgateError.invalidRequest("push is not enabled for that server")
        }
        return try await gateway.receipts(
            kind.rawValue, eventIDs: eventIDs, installationID: try installationID(), secret: secret)
    }

    /// Tells the server that the app shows the chat of `cwd` in the foreground, or
    /// none (`nil`: it left the chat or went to the background), issue 75: while it
    /// does, that agent's replies come as a silent update the app shows in the chat,
    /// not as a banner. The word holds 60 s: say it again every 30 s or so while the
    /// chat stays open, and `nil` as the app leaves it.
    @discardableResult
    public func reportForeground(serverID: String, cwd: String?) async throws -> AppStateAnswer {
        guard let secret = try secret(forServer: serverID) else {
            throw PushgateError.invalidRequest("push is not enabled for that server")
        }
        return try await gateway.appState(foregroundCWD: cwd, installationID: try installationID(), secret: secret)
    }

    /// Keeps the server's push secret (read from, or written to, its env file).
    public func enablePush(forServer serverID: String, secret: String) throws {
        guard PushSecretGenerator.isAcceptable(secret) else {
            throw PushgateError.invalidRequest(PushSecretGenerator.rule)
        }
        try store.set(secret, forKey: StoreKey.secret(ofServer: serverID))
    }

    public func secret(forServer serverID: String) throws -> String? {
        try store.string(forKey: StoreKey.secret(ofServer: serverID))
    }

    /// Every server's secret by the app's server id: what ``NotificationRouting``
    /// hashes to find a push's server.
    public func secrets() throws -> [String: String] {
        var secrets: [String: String] = [:]
        for key in try store.keys() where key.hasPrefix(StoreKey.secretPrefix) {
            secrets[String(key.dropFirst(StoreKey.secretPrefix.count))] = try store.string(forKey: key)
        }
        return secrets
    }

    /// The chats this installation subscribed to, oldest first.
    public func subscriptions() throws -> [KnownSubscription] {
        try ledger.subscriptions()
    }

    /// Calls the gateway has not answered yet.
    public func pendingCount() throws -> Int {
        try ledger.pending().count
    }

    // MARK: - Events of the app

    /// The push token, at each start and whenever it changes: a new one is
    /// registered again for every known chat.
    @discardableResult
    public func tokenChanged(to token: PushToken) async throws -> [ChatLocation: Outcome] {
        self.token = token
        guard try ledger.storedToken() != token else { return [:] }
        try ledger.storeToken(token)
        return try await registerEveryChat()
    }

    /// The installation's ActivityKit push-to-start token (iOS 17.2+,
    /// `Activity<AgentRunAttributes>.pushToStartTokenUpdates`), at each start and
    /// whenever it changes: a new one is registered again for every known chat, so
    /// that an agent's run can start a Live Activity on this phone.
    @discardableResult
    public func activityStartTokenChanged(to token: String) async throws -> [ChatLocation: Outcome] {
        guard try store.string(forKey: StoreKey.activityStartToken) != token else { return [:] }
        try store.set(token, forKey: StoreKey.activityStartToken)
        return try await registerEveryChat()
    }

    /// Every known chat registered again, now (a token changed: nothing coalesces).
    private func registerEveryChat() async throws -> [ChatLocation: Outcome] {
        recent = [:]
        var outcomes: [ChatLocation: Outcome] = [:]
        for subscription in try ledger.subscriptions() {
            outcomes[subscription.key] = try await register(subscription)
        }
        return outcomes
    }

    /// A Live Activity for `cwd`'s agent runs on this phone and ActivityKit handed over
    /// its update token (`activity.pushTokenUpdates`, again whenever it rotates): the
    /// gateway sends that activity's updates and end to it. Not kept when the gateway
    /// does not answer (the error is thrown): the next token ActivityKit hands over is
    /// the one to send.
    @discardableResult
    public func activityStarted(serverID: String, cwd: String, activityToken: String, runID: String? = nil)
        async throws -> ActivityAnswer
    {
        guard let secret = try secret(forServer: serverID) else {
            throw PushgateError.invalidRequest("push is not enabled for server \(serverID)")
        }
        return try await gateway.registerActivity(
            cwd: cwd, installationID: try installationID(), activityToken: activityToken, runID: runID, secret: secret)
    }

    /// A chat opened: the device subscribes to its agent (the seed's auto-subscribe).
    @discardableResult
    public func chatOpened(serverID: String, cwd: String, agentDisplayName: String? = nil) async throws -> Outcome {
        let subscription = KnownSubscription(serverID: serverID, cwd: cwd, agentDisplayName: agentDisplayName)
        try ledger.remember(subscription)
        return try await register(subscription)
    }

    /// Signs out of a server: its secret and chats are forgotten here at once, and the
    /// installation is unregistered there (later, if the gateway does not answer now).
    @discardableResult
    public func signOut(serverID: String) async throws -> SignOutOutcome {
        guard let secret = try secret(forServer: serverID) else { return .notEnabled }
        try store.removeValue(forKey: StoreKey.secret(ofServer: serverID))
        try ledger.forget(serverID: serverID)
        recent = recent.filter { $0.key.serverID != serverID }
        let installationID = try installationID()
        do {
            let answer = try await gateway.unregisterEverywhere(installationID: installationID, secret: secret)
            try await gatewayAnswered()
            return .signedOut(answer)
        } catch let error as PushgateError where error.isTransient {
            try ledger.keep(.signOut(serverID: serverID, secret: secret))
            scheduleRetry(after: options.retryBase)
            return .queued(error)
        } catch let error as PushgateError {
            return .refused(error)
        }
    }

    /// Sends what the gateway did not answer before, oldest first, stopping at the
    /// first it still does not answer; what it refuses is dropped. Returns how many
    /// calls are still waiting. The manager calls it on its own; an app may call it
    /// too (when the network comes back, say).
    @discardableResult
    public func retryPending() async throws -> Int {
        for call in try ledger.pending() {
            do {
                try await send(call)
                try ledger.drop(call)
            } catch let error as PushgateError where error.isTransient {
                break
            } catch is PushgateError {
                try ledger.drop(call)
            }
        }
        return try ledger.pending().count
    }

    /// Stops the background retries (the calls stay kept).
    public func stop() {
        retrying?.cancel()
        retrying = nil
    }

    // MARK: - Calls

    private func register(_ subscription: KnownSubscription) async throws -> Outcome {
        guard let secret = try secret(forServer: subscription.serverID) else { return .noSecret }
        guard let registration = try registration(of: subscription) else { return .waitingForToken }
        if let last = recent[subscription.key], last.registration == registration,
            ContinuousClock.now - last.at < options.coalescingWindow
        {
            return .coalesced
        }
        // Marked before the call: a second opening while it is out coalesces.
        recent[subscription.key] = (registration, .now)
        do {
            let answer = try await gateway.register(registration, secret: secret)
            try ledger.drop(.register(subscription))
            try await gatewayAnswered()
            return .registered(answer)
        } catch let error as PushgateError {
            recent[subscription.key] = nil
            guard error.isTransient else { return .refused(error) }
            try ledger.keep(.register(subscription))
            scheduleRetry(after: options.retryBase)
            return .queued(error)
        }
    }

    /// The registration of a chat with this installation's current token; `nil` with no token yet.
    private func registration(of subscription: KnownSubscription) throws -> Registration? {
        if token == nil { token = try ledger.storedToken() }
        guard let token else { return nil }
        return Registration(
            cwd: subscription.cwd, installationID: try installationID(), token: token,
            agentDisplayName: subscription.agentDisplayName, platform: options.platform,
            appVersion: options.appVersion, bundleID: options.bundleID, apnsEnvironment: options.apnsEnvironment,
            payloadKeys: options.sealsPushes ? try payloadKeys().registered : nil,
            activityStartToken: try store.string(forKey: StoreKey.activityStartToken),
            decisionKey: options.decides ? try decisionKey().publicKey : nil, deviceName: options.deviceName)
    }

    /// One kept call, made with what is current now. A registration of a chat since
    /// forgotten, or with no secret or token left, is done: nothing to send.
    private func send(_ call: PendingCall) async throws {
        switch call {
        case .register(let kept):
            guard let subscription = try ledger.subscriptions().first(where: { $0.key == kept.key }),
                let secret = try secret(forServer: subscription.serverID),
                let registration = try registration(of: subscription)
            else { return }
            _ = try await gateway.register(registration, secret: secret)
            recent[subscription.key] = (registration, .now)
        case .signOut(_, let secret):
            _ = try await gateway.unregisterEverywhere(installationID: try installationID(), secret: secret)
        }
    }

    /// The gateway answers again: what it missed goes now.
    private func gatewayAnswered() async throws {
        if try !ledger.pending().isEmpty { scheduleRetry(after: .zero) }
    }

    private func scheduleRetry(after first: Duration) {
        guard retrying == nil else { return }
        let (base, cap) = (options.retryBase, options.retryCap)
        retrying = Task {
            var wait = first
            while !Task.isCancelled {
                try? await Task.sleep(for: wait)
                guard !Task.isCancelled else { return }
                if (try? await self.retryPending()) == 0 { break }
                wait = min(max(wait * 2, base), cap)
            }
            self.retryEnded()
        }
    }

    private func retryEnded() {
        retrying = nil
        // A call kept after the last round found nothing waiting.
        if let waiting = try? ledger.pending().count, waiting > 0 { scheduleRetry(after: options.retryBase) }
    }
}
