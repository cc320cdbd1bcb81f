import Crypto
import Foundation
import NIOConcurrencyHelpers
import PushgateClient
import PushgateCore
import PushgateSealing

/// The APNs emulator acting as one phone (issue 73): a device token of its own,
/// payload keys and a decision key it holds, registered with a gateway given its
/// URL and push secret as the app registers (`PushgateClient`). Its phone page
/// opens that device's sealed pushes with its keys and answers its approvals with
/// Allow and Deny, signed with its decision key as the app signs them.
public final class EmulatorPhone: Sendable {
    /// Where the phone registered: the gateway, its secret, the agents' folders.
    struct Registration: Sendable {
        var gateway: URL
        var secret: String
        var cwds: [String]
    }

    /// What went wrong, in one line for the page.
    public struct Failure: Error, CustomStringConvertible {
        public let status: Int
        public let description: String
    }

    public let token: String
    public let installationID: String
    let payloadKeys = PayloadKeyPair()
    let decisionKey = DecisionKeyPair(softwareKey: P256.Signing.PrivateKey())
    private let registration = NIOLockedValueBox<Registration?>(nil)

    public init() {
        var generator = SystemRandomNumberGenerator()
        token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }
            .joined()
        installationID = "emulator-phone-" + token.prefix(8)
    }

    /// Registers the phone for `cwd` with the gateway at `gateway`, whose push secret
    /// is `secret`; a later registration with another gateway or secret replaces it.
    public func register(gateway: URL, secret: String, cwd: String) async throws(Failure) -> JSONValue {
        let call = Registration(gateway: gateway, secret: secret, cwds: [cwd])
        let answer: RegistrationAnswer
        do {
            answer = try await PushgateGateway(baseURL: gateway, retry: RetryPolicy(deadline: .seconds(10)))
                .register(
                    .init(
                        cwd: cwd, installationID: installationID, token: .apns(token), platform: .ios,
                        payloadKeys: payloadKeys.registered, decisionKey: decisionKey.publicKey,
                        deviceName: Self.deviceName),
                    secret: secret)
        } catch {
            throw Self.failure(error)
        }
        registration.withLockedValue { kept in
            if let same = kept, same.gateway == gateway, same.secret == secret {
                kept?.cwds = Array(Set(same.cwds + [cwd])).sorted()
            } else {
                kept = call
            }
        }
        return ["ok": true, "agent_key": .string(answer.agentKey), "installation_id": .string(installationID)]
    }

    /// The name it registers under: what `pushgate pair` shows when it pairs.
    public static let deviceName = "Emulator phone"

    /// Pairs the phone with an agent's machine (issue 82): `text` is what `pushgate pair`
    /// shows there — its link, or its code as a person types it. Completed at the gateway
    /// the phone registered with, never at the one a link names.
    public func pair(_ text: String) async throws(Failure) -> JSONValue {
        guard let registration = registration.withLockedValue({ $0 }) else {
            throw Failure(status: 409, description: "the phone is registered with no gateway yet")
        }
        let gateway = PushgateGateway(baseURL: registration.gateway, retry: RetryPolicy(deadline: .seconds(10)))
        let serverKey = PushgateKeys.serverKey(secret: registration.secret)
        let now = Int64(Date().timeIntervalSince1970)
        do {
            if let link = PairingLink(text) {
                let signed = try decisionKey.signPairing(
                    link, serverKey: serverKey, installationID: installationID, signedAt: now)
                _ = try await gateway.completePairing(signed, secret: registration.secret)
                return ["ok": true, "completed": 1, "fingerprint": .string(decisionKey.fingerprint)]
            }
            guard let code = PairingCode(typed: text) else {
                throw Failure(status: 400, description: "neither a pairing link nor a code (10 or more of 0-9 and A-Z)")
            }
            var completed = 0
            for pairing in try await gateway.openPairings(secret: registration.secret).pairings {
                let link = PairingLink(
                    gateway: registration.gateway.absoluteString, pairingID: pairing.pairingID, code: code)
                let signed = try decisionKey.signPairing(
                    link, serverKey: serverKey, installationID: installationID, signedAt: now)
                if (try? await gateway.completePairing(signed, secret: registration.secret)) != nil { completed += 1 }
            }
            return [
                "ok": true, "completed": .number(Double(completed)), "fingerprint": .string(decisionKey.fingerprint),
            ]
        } catch let failure as Failure {
            throw failure
        } catch let error as PushgateError {
            throw Self.failure(error)
        } catch {
            throw Failure(status: 500, description: "cannot sign: \(error)")
        }
    }

    /// Answers the approval `eventID` as the person would on the phone.
    public func decide(eventID: String, _ decision: SignedDecision.Decision, message: String?) async throws(Failure)
        -> JSONValue
    {
        guard let registration = registration.withLockedValue({ $0 }) else {
            throw Failure(status: 409, description: "the phone is registered with no gateway yet")
        }
        do {
            let signed = try decisionKey.sign(
                serverKey: PushgateKeys.serverKey(secret: registration.secret), eventID: eventID,
                installationID: installationID, decision: decision, signedAt: Int64(Date().timeIntervalSince1970),
                message: message, scope: decision == .allowAlways ? "0" : nil)
            let answer = try await PushgateGateway(
                baseURL: registration.gateway, retry: RetryPolicy(deadline: .seconds(10))
            )
            .decide(signed, secret: registration.secret)
            return [
                "ok": true, "event_id": .string(answer.eventID), "decision": .string(answer.decision),
                "decided_by": .string(answer.decidedBy), "decided_at": .string(answer.decidedAt),
            ]
        } catch let error as PushgateError {
            throw Self.failure(error)
        } catch {
            throw Failure(status: 500, description: "cannot sign: \(error)")
        }
    }

    /// Sends the agent of `cwd` words as the person would from the phone (issue 84):
    /// signed for that agent with its decision key, as the app signs them.
    public func say(_ words: String, toAgentAt cwd: String) async throws(Failure) -> JSONValue {
        guard let registration = registration.withLockedValue({ $0 }) else {
            throw Failure(status: 409, description: "the phone is registered with no gateway yet")
        }
        do {
            let signed = try decisionKey.sign(
                serverKey: PushgateKeys.serverKey(secret: registration.secret),
                eventID: "emulator-" + UUID().uuidString.lowercased(), installationID: installationID, decision: .say,
                signedAt: Int64(Date().timeIntervalSince1970), message: words, scope: PushgateKeys.agentKey(cwd: cwd))
            let answer = try await PushgateGateway(
                baseURL: registration.gateway, retry: RetryPolicy(deadline: .seconds(10))
            )
            .say(signed, cwd: cwd, secret: registration.secret)
            return ["ok": true, "message_id": .string(answer.messageID), "sent_at": .string(answer.sentAt)]
        } catch let error as PushgateError {
            throw Self.failure(error)
        } catch {
            throw Failure(status: 500, description: "cannot sign: \(error)")
        }
    }

    /// What the page shows of the phone: its token, where it registered (never the
    /// secret), and its pushes opened with its keys, by `apns-id`.
    public func status(of entries: [APNsInboxEntry]) -> JSONValue {
        var opened: [String: JSONValue] = [:]
        for entry in entries where entry.deviceToken == token {
            guard let id = entry.headers["apns-id"], let payload = entry.payload,
                let bytes = try? payload.encodedData(),
                let userInfo = try? JSONSerialization.jsonObject(with: bytes) as? [AnyHashable: Any],
                let open = PushgateNotification.opened(userInfo, keys: payloadKeys),
                let data = try? JSONSerialization.data(
                    withJSONObject: open.userInfo.filter { $0.key as? String != nil }),
                let json = try? JSONValue.parse(Array(data))
            else { continue }
            opened[id] = json
        }
        let kept = registration.withLockedValue { $0 }
        var status: [String: JSONValue] = [
            "token": .string(token), "installation_id": .string(installationID),
            "decision_key": .string(decisionKey.publicKey), "fingerprint": .string(decisionKey.fingerprint),
            "device_name": .string(Self.deviceName), "opened": .object(opened),
        ]
        status["gateway"] = kept.map { .string($0.gateway.absoluteString) }
        status["cwds"] = kept.map { .array($0.cwds.map(JSONValue.string)) }
        return .object(status)
    }

    private static func failure(_ error: PushgateError) -> Failure {
        switch error {
        case .gateway(let answer):
            Failure(
                status: answer.httpStatus,
                description: answer.reason.map { "\($0): \(answer.message)" } ?? answer.message)
        case .invalidRequest(let reason): Failure(status: 400, description: reason)
        default: Failure(status: 502, description: "\(error)")
        }
    }
}
