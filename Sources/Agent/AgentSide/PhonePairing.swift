import Foundation
import PushgateAgentHooks
import PushgateCore
import PushgateSealing

/// `pushgate pair`'s work (issue 82): opens a pairing at the gateway, makes the code
/// the person carries to the phone (never sent to the gateway), waits for the phones'
/// completions and checks each against the code: the installation whose signature
/// verifies is pinned (``PinFile``) — its key is the one that may say yes from now on.
/// A completion that does not verify is refused and named; the wait goes on.
public struct PhonePairing: Sendable {
    public let gateway: any AgentGateway
    public let pins: PinFile
    public let callTimeout: Duration

    public init(gateway: any AgentGateway, pins: PinFile, callTimeout: Duration) {
        self.gateway = gateway
        self.pins = pins
        self.callTimeout = callTimeout
    }

    /// A pairing open at the gateway, and what the person is shown.
    public struct Opened: Sendable {
        public let pairingID: String
        public let code: PairingCode
        public let link: PairingLink
        /// When it closes, as the gateway says (RFC 3339).
        public let expiresAt: String
        public let openedAt: Date
        /// When it closes, on this machine's clock.
        public let closes: ContinuousClock.Instant
    }

    /// A phone paired.
    public struct Paired: Sendable, Equatable {
        public let installationID: String
        public let deviceName: String?
        public let fingerprint: String

        public init(installationID: String, deviceName: String?, fingerprint: String) {
            self.installationID = installationID
            self.deviceName = deviceName
            self.fingerprint = fingerprint
        }
    }

    /// How the wait ended.
    public enum Ending: Sendable, Equatable {
        case paired(Paired)
        /// The pairing closed with no phone paired.
        case expired
        /// Paired, but the pin could not be written; or the gateway refused the wait.
        case failed(String)
    }

    /// Opens a pairing for `seconds`.
    public func open(for seconds: Int) async throws(GatewayCallError) -> Opened {
        let openedAt = Date()
        let started = ContinuousClock.now
        let opened = try await gateway.startPairing(wait: seconds, timeout: callTimeout)
        let code = PairingCode.make()
        return Opened(
            pairingID: opened.pairingID, code: code,
            link: PairingLink(gateway: gateway.baseURL, pairingID: opened.pairingID, code: code),
            expiresAt: opened.expiresAt, openedAt: openedAt, closes: started + .seconds(seconds))
    }

    /// Waits for a phone whose completion verifies against the code, and pins it;
    /// `refused` hears each completion that does not verify.
    public func wait(for opened: Opened, refused: @Sendable (String) -> Void) async -> Ending {
        var seen = 0
        return await LongPoll.until(opened.closes, callTimeout: callTimeout) { wait, timeout -> Ending? in
            let completions: [PairingCompletions.Completion]
            do throws(GatewayCallError) {
                completions = try await gateway.awaitPairing(
                    opened.pairingID, wait: wait, seen: seen, timeout: timeout
                ).completions
            } catch {
                // Closed: expired. Unreachable, or a gateway in trouble: asked again.
                if error.reason == "unknown_pairing" { return .expired }
                return error.isRetryable ? nil : .failed(error.description)
            }
            for completion in completions.dropFirst(seen) {
                switch check(completion, of: opened) {
                case .success(let key): return pin(key, of: completion)
                case .failure(let refusal): refused(refusal.reason)
                }
            }
            seen = max(seen, completions.count)
            return nil
        } ?? .expired
    }

    /// The key of a completion that verifies against the code, or why it does not.
    func check(_ completion: PairingCompletions.Completion, of opened: Opened) -> Result<DecisionKey, Refusal> {
        let who =
            InvisibleCharacters.escaped(String(completion.installationID.prefix(128)))
            + (completion.deviceName.map { " (\(InvisibleCharacters.escaped(String($0.prefix(64)))))" } ?? "")
        guard let key = DecisionKey(completion.decisionKey) else {
            return .failure(Refusal("\(who): the gateway names no decision key for it: refused"))
        }
        let signed = SignedPairing(
            serverKey: gateway.serverKey.hex, pairingID: opened.pairingID, installationID: completion.installationID,
            signedAt: completion.signedAt, signature: completion.signature)
        guard signed.isSigned(by: key, code: opened.code) else {
            return .failure(
                Refusal("\(who) (key \(key.fingerprint)) did not sign this pairing with its code: refused, not paired"))
        }
        guard Double(completion.signedAt) >= opened.openedAt.timeIntervalSince1970 - SignedDecision.maxClockSkew else {
            return .failure(Refusal("\(who) signed before this pairing was opened: refused"))
        }
        return .success(key)
    }

    /// Why a completion is refused.
    public struct Refusal: Error, Equatable {
        public let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    private func pin(_ key: DecisionKey, of completion: PairingCompletions.Completion) -> Ending {
        let name = completion.deviceName.flatMap { Self.shown($0) }
        do {
            try pins.update { $0.pin(key, of: completion.installationID, deviceName: name, at: Date()) }
        } catch {
            return .failed("\(completion.installationID) verified, but not paired: \(error)")
        }
        return .paired(
            Paired(installationID: completion.installationID, deviceName: name, fingerprint: key.fingerprint))
    }

    /// A device's name as a line shows it: one line, at most 64 characters.
    static func shown(_ name: String) -> String? {
        let shown = InvisibleCharacters.shown(String(name.prefix(256)), multiline: false)
            .trimmingCharacters(in: .whitespaces)
        return shown.isEmpty ? nil : String(shown.prefix(64))
    }
}
