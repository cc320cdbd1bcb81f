import Foundation
import PushgateClient
import PushgateCore
import PushgateSealing

/// `pushgate pair --join LINK`: a phone's half of a pairing from a shell (a phone of
/// your own for scripts and tests, as `pushgate decide` is): the link's pairing and
/// code signed with the decision key file, sent with `completePairing` through the
/// app's own package (``PushgateGateway``). The call goes to the gateway the options
/// name — never to the one the link names, which a code from anywhere could point
/// elsewhere, with the secret.
struct PairingJoin {
    let gateway: GatewayCallOptions
    let link: String
    let installationID: String
    let keyFile: String
    let json: Bool

    func run(timeout: Duration) async throws {
        guard let link = PairingLink(link) else {
            throw CommandFailure("not a pairing link: pushgate://pair?gateway=…&pairing=…&code=…")
        }
        let key = try DecisionKeyFile(path: keyFile).load()
        let environment = ProcessInfo.processInfo.environment
        let baseURL = gateway.baseURL(environment: environment)
        let secret = try gateway.secret(environment: environment)
        if link.gateway != baseURL {
            StandardError.write(
                "warning: the link names the gateway \(InvisibleCharacters.escaped(link.gateway)); completing at \(baseURL)\n"
            )
        }
        guard let url = URL(string: baseURL) else { throw CommandFailure("\(baseURL) is not a URL") }
        let signed = try key.signPairing(
            link, serverKey: secret.serverKey.hex, installationID: installationID,
            signedAt: Int64(Date().timeIntervalSince1970))
        let client = PushgateGateway(baseURL: url, retry: RetryPolicy(deadline: timeout))
        do {
            _ = try await client.completePairing(signed, secret: secret.value)
        } catch {
            throw CommandFailure("completePairing: \(error)")
        }
        if json {
            PairCommand.printLine(["installation_id": .string(installationID), "fingerprint": .string(key.fingerprint)])
        } else {
            print("Completed the pairing as \(installationID), key fingerprint \(key.fingerprint).")
        }
    }
}
