import Foundation
import Logging
import PushgateCore
import PushgateHTTP2
import PushgateProviderKit

extension FCMPlugin {
    /// An app of `apps:` with a service account of its own takes its project id from
    /// it (or gives one), never the gateway's.
    public var perAppRules: [PerAppRule] {
        [
            PerAppRule(Setting<String>.fcmProjectID.erased) { app in
                app.appGives(Setting<String>.fcmCredentials.erased) ? .notGiven : .gateways
            }
        ]
    }

    /// The service account read, an access token fetched with it, FCM's host
    /// resolved and a connection opened.
    public func doctorChecks(_ settings: some SettingReading, logger: Logger) async -> [DoctorCheck] {
        let fcm: FCMConfiguration
        do {
            guard let configured = try FCMConfiguration.read(from: settings) else {
                return [.notConfigured("fcm credentials", format, devices: "FCM tokens")]
            }
            fcm = configured
        } catch {
            return [DoctorCheck("fcm credentials", .failed, error.description)]
        }
        let account = fcm.serviceAccount
        var checks = [
            DoctorCheck(
                "fcm credentials", .ok,
                "service account \(account.clientEmail), key \(account.privateKeyID.prefix(8))…, project \(fcm.projectID)"
            )
        ]
        let provider: FCMPushProvider
        do {
            provider = try FCMPushProvider(configuration: fcm, logger: logger)
        } catch {
            checks.append(DoctorCheck("fcm token", .failed, "\(error)"))
            return checks
        }
        do {
            let token = try await provider.accessTokens.token()
            let minutes = Int(token.expiresAt.timeIntervalSinceNow / 60)
            checks.append(
                DoctorCheck(
                    "fcm token", .ok,
                    "\(account.tokenURI) issued one, valid for \(minutes) more minutes (the token is not shown)"))
        } catch {
            checks.append(DoctorCheck("fcm token", .failed, "\(account.tokenURI): \(error.description)"))
        }
        checks += await DoctorCheck.reachability(
            "fcm", host: fcm.endpoint.host, endpoint: "\(fcm.endpoint)",
            addresses: await fcm.endpoint.resolvedAddresses(),
            trust: DoctorCheck.trust(extraCAFile: fcm.extraTrustedCAFile)
        ) { try await provider.checkConnection() }
        await provider.shutdown()
        return checks
    }
}
