import Foundation
import PushgateSealing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A gateway's functions as an app calls them, each with the server's push secret:
/// typed answers, and errors carrying the gateway's error JSON. A 429 or 5xx is
/// retried as ``RetryPolicy`` says, within the call's deadline; no answer at all is
/// ``PushgateError/unreachable(_:)`` at once.
///
/// Nothing here logs, and no error's text holds the secret or a whole token.
public struct PushgateGateway: Sendable {
    /// Where the functions are: `https://push.example.com` serves
    /// `https://push.example.com/registerSubscription`.
    public let baseURL: URL
    public var retry: RetryPolicy
    private let session: URLSession

    public init(baseURL: URL, retry: RetryPolicy = RetryPolicy(), session: URLSession = .shared) {
        self.baseURL = baseURL
        self.retry = retry
        self.session = session
    }

    /// Subscribes a device to an agent (`registerSubscription`), or updates its token.
    public func register(_ registration: Registration, secret: String) async throws(PushgateError)
        -> RegistrationAnswer
    {
        try await call("POST", "registerSubscription", body: registration.body, secret: secret)
    }

    /// Unsubscribes the installation from one agent (`unregisterSubscription`).
    /// Records the update token of the Live Activity running for `cwd`'s agent on this
    /// installation (ActivityKit's `pushTokenUpdates`, each time it hands one over).
    public func registerActivity(
        cwd: String, installationID: String, activityToken: String, runID: String? = nil, secret: String
    ) async throws(PushgateError) -> ActivityAnswer {
        var body = ["cwd": cwd, "installation_id": installationID, "activity_token": activityToken]
        body["run_id"] = runID
        return try await call("POST", "registerActivity", body: RequestBody(body), secret: secret)
    }

    public func unregister(cwd: String, installationID: String, secret: String) async throws(PushgateError)
        -> UnregisterAnswer
    {
        try await call(
            "POST", "unregisterSubscription", body: RequestBody(["cwd": cwd, "installation_id": installationID]),
            secret: secret)
    }

    /// Unsubscribes the installation from every agent of the server (`unregisterInstallation`):
    /// a sign-out.
    public func unregisterEverywhere(installationID: String, secret: String) async throws(PushgateError)
        -> UnregisterInstallationAnswer
    {
        try await call(
            "POST", "unregisterInstallation", body: RequestBody(["installation_id": installationID]), secret: secret)
    }

    /// A page of the agents the installation is subscribed to (`subscriptions`).
    public func subscriptions(
        installationID: String, pageSize: Int? = nil, pageToken: String? = nil, secret: String
    ) async throws(PushgateError) -> SubscriptionsAnswer {
        var query = ["installation_id": installationID]
        query["page_size"] = pageSize.map(String.init)
        query["page_token"] = pageToken
        return try await call("GET", "subscriptions", query: query, secret: secret)
    }

    /// Whether the agent side is connected, the server's agents, and with
    /// `installationID` or `agentKey` the detail of one (`diagnostics`).
    public func diagnostics(
        installationID: String? = nil, agentKey: String? = nil, pageSize: Int? = nil, pageToken: String? = nil,
        secret: String
    ) async throws(PushgateError) -> DiagnosticsAnswer {
        var query: [String: String] = [:]
        query["installation_id"] = installationID
        query["agent_key"] = agentKey
        query["page_size"] = pageSize.map(String.init)
        query["page_token"] = pageToken
        return try await call("GET", "diagnostics", query: query, secret: secret)
    }

    /// What the gateway holds for the server (`ping`); ``GatewayError/Code/notFound``
    /// when no device ever registered with this secret.
    public func ping(secret: String) async throws(PushgateError) -> PingAnswer {
        try await call("GET", "ping", secret: secret)
    }

    /// Resolves an event (`resolveEvent`): its reminders stop, its badges go down.
    public func resolve(eventID: String, resolution: String? = nil, secret: String) async throws(PushgateError)
        -> ResolveAnswer
    {
        var body = ["event_id": eventID]
        body["resolution"] = resolution
        return try await call("POST", "resolveEvent", body: RequestBody(body), secret: secret)
    }

    /// Sends a phone's signed decision of an approval (`decideEvent`, issue 73).
    public func decide(_ decision: SignedDecision, secret: String) async throws(PushgateError) -> DecisionAnswer {
        var body = RequestBody([
            "event_id": decision.eventID, "installation_id": decision.installationID,
            "decision": decision.decision.rawValue, "signature": decision.signature,
        ])
        body.fields["message"] = decision.message
        body.integers["signed_at"] = decision.signedAt
        // An "always" names the suggestion it signed (issue 84).
        if decision.decision == .allowAlways { body.integers["suggestion"] = decision.scope.flatMap { Int64($0) } }
        return try await call("POST", "decideEvent", body: body, secret: secret)
    }

    /// Sends an agent a phone's signed words (`sayToAgent`, issue 84): `signed` is a
    /// ``SignedDecision/Decision/say`` whose scope is the agent's key, for `cwd`.
    public func say(_ signed: SignedDecision, cwd: String, secret: String) async throws(PushgateError)
        -> MessageAnswer
    {
        var body = RequestBody([
            "cwd": cwd, "installation_id": signed.installationID, "message_id": signed.eventID,
            "message": signed.message ?? "", "signature": signed.signature,
        ])
        body.integers["signed_at"] = signed.signedAt
        return try await call("POST", "sayToAgent", body: body, secret: secret)
    }

    /// Completes a pairing `pushgate pair` opened (`completePairing`, issue 82) with
    /// this phone's signature over it and its code.
    public func completePairing(_ signed: SignedPairing, secret: String) async throws(PushgateError) -> PairingAnswer {
        var body = RequestBody([
            "pairing_id": signed.pairingID, "installation_id": signed.installationID, "signature": signed.signature,
        ])
        body.integers["signed_at"] = signed.signedAt
        return try await call("POST", "completePairing", body: body, secret: secret)
    }

    /// The pairings open under the server (`GET /pairings`, issue 82): where a typed
    /// code may belong.
    public func openPairings(secret: String) async throws(PushgateError) -> OpenPairingsAnswer {
        try await call("GET", "pairings", secret: secret)
    }

    /// `POST /receipts` (issue 75): this installation's word that the pushes of
    /// `eventIDs` (at most 100) reached it (`delivered`) or were opened (`opened`).
    public func receipts(
        _ kind: String, eventIDs: [String], installationID: String, secret: String
    ) async throws(PushgateError) -> ReceiptsAnswer {
        var body = RequestBody(["installation_id": installationID, "kind": kind])
        body.lists["event_ids"] = eventIDs
        return try await call("POST", "receipts", body: body, secret: secret)
    }

    /// `POST /appState` (issue 75): the chat of `foregroundCWD` is shown in the
    /// foreground (`nil`: none).
    public func appState(
        foregroundCWD: String?, installationID: String, secret: String
    ) async throws(PushgateError) -> AppStateAnswer {
        var fields = ["installation_id": installationID]
        fields["foreground_cwd"] = foregroundCWD
        return try await call("POST", "appState", body: RequestBody(fields), secret: secret)
    }

    // MARK: - One call

    private func call<Answer: Decodable>(
        _ method: String, _ function: String, query: [String: String] = [:], body: RequestBody? = nil,
        secret: String
    ) async throws(PushgateError) -> Answer {
        guard PushSecretGenerator.isAcceptable(secret) else {
            throw .invalidRequest(PushSecretGenerator.rule)
        }
        var request = URLRequest(url: try url(of: function, query: query))
        request.httpMethod = method
        request.setValue("Bearer \(secret)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try? JSONEncoder().encode(body)
        }
        let clock = ContinuousClock()
        let deadline = clock.now + retry.deadline
        var attempt = 0
        while true {
            attempt += 1
            let remaining = deadline - clock.now
            guard remaining > .zero else { throw .deadlineExceeded }
            request.timeoutInterval = Self.seconds(remaining)
            let (status, data, retryAfter) = try await send(request)
            if (200..<300).contains(status) {
                do {
                    return try JSONDecoder().decode(Answer.self, from: data)
                } catch {
                    throw .invalidAnswer(status: status, "\(error)")
                }
            }
            // A proxy in front of the gateway may answer without its JSON.
            let refusal =
                GatewayError(httpStatus: status, body: data, retryAfter: retryAfter)
                ?? GatewayError(
                    httpStatus: status, code: GatewayError.Code(rawValue: "HTTP_\(status)"),
                    message: "an answer without the gateway's error JSON", retryAfter: retryAfter)
            guard status == 429 || status >= 500, attempt < retry.maxAttempts else { throw .gateway(refusal) }
            let wait = retry.delay(afterAttempt: attempt, retryAfter: retryAfter, random: Double.random(in: 0...1))
            guard clock.now + wait < deadline else { throw .gateway(refusal) }
            do {
                try await Task.sleep(for: wait)
            } catch {
                throw .gateway(refusal)
            }
        }
    }

    /// One request: its status, body and `Retry-After`.
    private func send(_ request: URLRequest) async throws(PushgateError) -> (Int, Data, Duration?) {
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else {
                throw PushgateError.invalidAnswer(status: 0, "not an HTTP answer")
            }
            let retryAfter = RetryPolicy.retryAfter(http.value(forHTTPHeaderField: "Retry-After"), now: Date())
            return (http.statusCode, data, retryAfter)
        } catch let error as PushgateError {
            throw error
        } catch let error as URLError where error.code == .timedOut {
            throw .deadlineExceeded
        } catch let error as URLError {
            throw .unreachable("\(error.code.rawValue) \(error.localizedDescription)")
        } catch {
            throw .unreachable("\(error)")
        }
    }

    private func url(of function: String, query: [String: String]) throws(PushgateError) -> URL {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            throw .invalidRequest("the gateway's base URL \(baseURL) cannot hold a function's path")
        }
        components.path = (components.path.hasSuffix("/") ? components.path : components.path + "/") + function
        components.queryItems =
            query.isEmpty ? nil : query.keys.sorted().map { URLQueryItem(name: $0, value: query[$0]) }
        guard let url = components.url else {
            throw .invalidRequest("the gateway's base URL \(baseURL) cannot hold a function's path")
        }
        return url
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
