import Crypto
import Foundation
import Logging
import PushgateCore
import PushgateHTTP2
import PushgateProviderKit

extension APNsPlugin {
    /// An app of `apps:` with APNs sends under its own bundle id: its topic is its id
    /// unless it gives one, never the gateway's.
    public var perAppRules: [PerAppRule] {
        [
            PerAppRule(Setting<String>.apnsTopic.erased) { app in
                app.isGiven(Setting<String>.apnsKeyPath.erased) ? .given(app.appID) : .notGiven
            }
        ]
    }

    /// The key read, a provider token signed and verified with it, each environment's
    /// host resolved and a connection opened (the other environment's too when it is
    /// elsewhere: it takes the devices that say so, and each unstated device's second
    /// try after `BadDeviceToken`).
    public func doctorChecks(_ settings: some SettingReading, logger: Logger) async -> [DoctorCheck] {
        let apns: APNsConfiguration
        do {
            guard let configured = try APNsConfiguration.read(from: settings) else {
                return [.notConfigured("apns key", format, devices: "APNs tokens")]
            }
            apns = configured
        } catch {
            return [DoctorCheck("apns key", .failed, error.description)]
        }
        var checks = [
            DoctorCheck(
                "apns key", .ok,
                "a P-256 key; key id \(apns.keyID), team \(apns.teamID), topic \(apns.topic), \(apns.environment.rawValue)"
            ),
            Self.jwtCheck(apns),
        ]
        let trust = DoctorCheck.trust(extraCAFile: apns.extraTrustedCAFile)
        let other: APNsEnvironment = apns.environment == .production ? .sandbox : .production
        let otherConfiguration = apns.defaulting(to: other)
        for (name, configuration) in [("apns", apns), ("apns \(other.rawValue)", otherConfiguration)]
        where name == "apns" || configuration.endpoint != apns.endpoint {
            checks += await DoctorCheck.reachability(
                name, host: configuration.endpoint.host, endpoint: "\(configuration.endpoint)",
                addresses: await configuration.endpoint.resolvedAddresses(), trust: trust
            ) {
                let provider = try APNsPushProvider(configuration: configuration, logger: logger)
                defer { Task { await provider.shutdown() } }
                try await provider.checkConnection()
            }
        }
        return checks
    }

    private static func jwtCheck(_ apns: APNsConfiguration) -> DoctorCheck {
        do {
            let token = try APNsJWT.make(keyID: apns.keyID, teamID: apns.teamID, issuedAt: Date(), key: apns.signingKey)
            guard APNsJWT.isSignatureValid(token, publicKey: apns.signingKey.publicKey) else {
                return DoctorCheck("jwt", .failed, "the token's signature does not verify with the key")
            }
            return DoctorCheck("jwt", .ok, "an ES256 provider token signs and verifies with the key")
        } catch {
            return DoctorCheck("jwt", .failed, "cannot sign a provider token: \(error)")
        }
    }
}
