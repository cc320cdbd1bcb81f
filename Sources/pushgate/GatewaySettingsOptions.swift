import ArgumentParser
import Foundation
import PushgateCore
import PushgateServer

/// The gateway's settings as flags, shared by `serve`, `config` and `doctor`; each
/// flag's help comes from the settings catalogue (`Setting`), with its environment
/// variable and default.
struct GatewaySettingsOptions: ParsableArguments {
    @Option(help: "A YAML configuration file; flags and PUSHGATE_* variables win over it. Env: PUSHGATE_CONFIG.")
    var config: String?

    @Option(help: .setting(.host)) var host: String?
    @Option(help: .setting(.port)) var port: String?
    @Option(help: .setting(.database)) var database: String?
    @Option(help: .setting(.logLevel)) var logLevel: String?
    @Option(help: .setting(.logFormat)) var logFormat: String?
    @Option(help: .setting(.readyMaxBacklog)) var readyMaxBacklog: String?
    @Option(help: .setting(.metricsListen)) var metricsListen: String?
    @Option(help: .setting(.console)) var console: String?
    @Option(help: .setting(.healthDetails)) var healthDetails: String?
    @Option(help: .setting(.maxConnections)) var maxConnections: String?
    @Option(help: .setting(.maxConnectionsPerAddress)) var maxConnectionsPerAddress: String?
    @Option(help: .setting(.idleTimeout)) var idleTimeout: String?
    @Option(help: .setting(.receiveTimeout)) var receiveTimeout: String?
    @Option(help: .setting(.defaultApp)) var defaultApp: String?
    @Option(help: .setting(.apnsKeyPath)) var apnsKeyPath: String?
    @Option(help: .setting(.apnsKeyID)) var apnsKeyId: String?
    @Option(help: .setting(.apnsTeamID)) var apnsTeamId: String?
    @Option(help: .setting(.apnsTopic)) var apnsTopic: String?
    @Option(help: .setting(.apnsEnvironment)) var apnsEnvironment: String?
    @Option(help: .setting(.apnsURL)) var apnsUrl: String?
    @Option(help: .setting(.apnsProductionURL)) var apnsProductionUrl: String?
    @Option(help: .setting(.apnsSandboxURL)) var apnsSandboxUrl: String?
    @Option(help: .setting(.apnsCAFile)) var apnsCaFile: String?
    @Option(help: .setting(.apnsConnections)) var apnsConnections: String?
    @Option(help: .setting(.apnsMaxStreams)) var apnsMaxStreams: String?
    @Option(help: .setting(.apnsTTL)) var apnsTtl: String?
    @Option(help: .setting(.fcmCredentials)) var fcmCredentials: String?
    @Option(help: .setting(.fcmProjectID)) var fcmProjectId: String?
    @Option(help: .setting(.fcmURL)) var fcmUrl: String?
    @Option(help: .setting(.fcmCAFile)) var fcmCaFile: String?
    @Option(help: .setting(.fcmConnections)) var fcmConnections: String?
    @Option(help: .setting(.triggerWait)) var triggerWait: String?
    @Option(help: .setting(.answerMaxDevices)) var answerMaxDevices: String?
    @Option(help: .setting(.deliveryMaxAttempts)) var deliveryMaxAttempts: String?
    @Option(help: .setting(.outboxLease)) var outboxLease: String?
    @Option(help: .setting(.outboxRetentionDays)) var outboxRetentionDays: String?
    @Option(help: .setting(.storeMinFreeMB)) var storeMinFreeMb: String?
    @Option(help: .setting(.shutdownGrace)) var shutdownGrace: String?
    @Option(help: .setting(.escalationSchedule)) var escalationSchedule: String?
    @Option(help: .setting(.coalesceWindow)) var coalesceWindow: String?
    @Option(help: .setting(.previewDefault)) var previewDefault: String?
    @Option(help: .setting(.staleDeviceDays)) var staleDeviceDays: String?
    @Option(help: .setting(.ratePerSecret)) var ratePerSecret: String?
    @Option(help: .setting(.ratePerAddress)) var ratePerAddress: String?
    @Option(help: .setting(.healthRatePerAddress)) var healthRatePerAddress: String?
    @Option(help: .setting(.ipv6Prefix)) var ipv6Prefix: String?
    @Option(help: .setting(.newNamespacesPerAddress)) var newNamespacesPerAddress: String?
    @Option(help: .setting(.trustedProxies)) var trustedProxies: String?
    @Option(help: .setting(.maxDevicesPerAgent)) var maxDevicesPerAgent: String?
    @Option(help: .setting(.maxAgentsPerServer)) var maxAgentsPerServer: String?
    @Option(help: .setting(.appURLSchemes)) var appUrlSchemes: String?
    @Option(help: .setting(.presenceConnected)) var presenceConnected: String?
    @Option(help: .setting(.presenceRecent)) var presenceRecent: String?

    /// The flags given, by setting key.
    var flags: [String: String] {
        let given: [(Setting, String?)] = [
            (.host, host), (.port, port), (.database, database), (.logLevel, logLevel), (.logFormat, logFormat),
            (.readyMaxBacklog, readyMaxBacklog), (.metricsListen, metricsListen), (.console, console),
            (.healthDetails, healthDetails),
            (.maxConnections, maxConnections), (.maxConnectionsPerAddress, maxConnectionsPerAddress),
            (.idleTimeout, idleTimeout), (.receiveTimeout, receiveTimeout),
            (.defaultApp, defaultApp), (.apnsKeyPath, apnsKeyPath),
            (.apnsKeyID, apnsKeyId), (.apnsTeamID, apnsTeamId), (.apnsTopic, apnsTopic),
            (.apnsEnvironment, apnsEnvironment), (.apnsURL, apnsUrl),
            (.apnsProductionURL, apnsProductionUrl), (.apnsSandboxURL, apnsSandboxUrl), (.apnsCAFile, apnsCaFile),
            (.apnsConnections, apnsConnections), (.apnsMaxStreams, apnsMaxStreams), (.apnsTTL, apnsTtl),
            (.fcmCredentials, fcmCredentials), (.fcmProjectID, fcmProjectId), (.fcmURL, fcmUrl),
            (.fcmCAFile, fcmCaFile), (.fcmConnections, fcmConnections),
            (.triggerWait, triggerWait), (.answerMaxDevices, answerMaxDevices),
            (.deliveryMaxAttempts, deliveryMaxAttempts), (.outboxLease, outboxLease),
            (.outboxRetentionDays, outboxRetentionDays), (.storeMinFreeMB, storeMinFreeMb),
            (.shutdownGrace, shutdownGrace),
            (.escalationSchedule, escalationSchedule), (.coalesceWindow, coalesceWindow),
            (.previewDefault, previewDefault), (.staleDeviceDays, staleDeviceDays),
            (.ratePerSecret, ratePerSecret), (.ratePerAddress, ratePerAddress),
            (.healthRatePerAddress, healthRatePerAddress), (.ipv6Prefix, ipv6Prefix),
            (.newNamespacesPerAddress, newNamespacesPerAddress), (.trustedProxies, trustedProxies),
            (.maxDevicesPerAgent, maxDevicesPerAgent), (.maxAgentsPerServer, maxAgentsPerServer),
            (.appURLSchemes, appUrlSchemes), (.presenceConnected, presenceConnected), (.presenceRecent, presenceRecent),
        ]
        return Dictionary(uniqueKeysWithValues: given.compactMap { setting, value in value.map { (setting.key, $0) } })
    }

    /// Flags, environment and the configuration file, the file's unknown keys warned
    /// about on standard error; a file that cannot be read stops with one line.
    func sources(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> SettingSources {
        try Self.sources(config: config, flags: flags, environment: environment)
    }

    /// The settings of any command: `flags` over the environment over the file that
    /// `config` (or `PUSHGATE_CONFIG`) names.
    static func sources(config: String?, flags: [String: String], environment: [String: String]) throws
        -> SettingSources
    {
        var file: ConfigurationFile?
        if let path = config ?? environment["PUSHGATE_CONFIG"], !path.isEmpty {
            do {
                file = try ConfigurationFile(path: path)
            } catch {
                throw CommandFailure(error.description)
            }
            for key in file?.unknownKeys ?? [] {
                StandardError.write("warning: unknown key '\(key)' in \(path), ignored\n")
            }
        }
        return SettingSources(flags: flags, environment: environment, file: file)
    }
}

extension ArgumentHelp {
    /// A setting's help: what it does, its variable, its file key and its default.
    static func setting(_ setting: Setting) -> ArgumentHelp {
        var text = "\(setting.help) Env: \(setting.environmentName). File: \(setting.key)."
        if let value = setting.defaultValue { text += " Default: \(value)." }
        return ArgumentHelp(stringLiteral: text)
    }
}
