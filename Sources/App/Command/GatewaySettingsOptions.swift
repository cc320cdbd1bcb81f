import ArgumentParser
import Foundation
import PushgateCore
import PushgateServer

/// The gateway's settings as flags, shared by `serve`, `config` and `doctor`: each
/// setting's flag comes from the settings catalogue (``AnySetting/all``), not from a
/// declaration of its own here, and so does its help (with its variable, file key
/// and default).
struct GatewaySettingsOptions: ParsableArguments {
    @Option(help: "A YAML configuration file; flags and PUSHGATE_* variables win over it. Env: PUSHGATE_CONFIG.")
    var config: String?

    /// `--<setting> <value>` or `--<setting>=<value>`, for any setting of the catalogue.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp(Self.settingsHelp, valueName: "setting flags"))
    var settingFlags: [String] = []

    /// Every setting's flag and help, one per line: what `--help` lists.
    static let settingsHelp: String = {
        let lines = AnySetting.all.map { setting in
            var line = "\(setting.flag) <value>  \(setting.help) Env: \(setting.environmentName). File: \(setting.key)."
            if let value = setting.defaultValue { line += " Default: \(value)." }
            return line
        }
        return "Any setting, as its flag:\n" + lines.joined(separator: "\n")
    }()

    func validate() throws {
        _ = try flags
    }

    /// The flags given, by setting key; a flag no setting has, or one without its
    /// value, is refused naming it.
    var flags: [String: String] {
        get throws {
            let settings = Dictionary(AnySetting.all.map { ($0.flag, $0) }, uniquingKeysWith: { first, _ in first })
            var flags: [String: String] = [:]
            var remaining = settingFlags[...]
            while let argument = remaining.popFirst() {
                let (flag, inline) =
                    argument.firstIndex(of: "=").map {
                        (String(argument[..<$0]), String(argument[argument.index(after: $0)...]))
                    }
                    ?? (argument, nil)
                guard flag.hasPrefix("--"), let setting = settings[flag] else {
                    throw ValidationError("unknown option '\(flag)' (pushgate serve --help lists the settings)")
                }
                guard let value = inline ?? remaining.popFirst() else {
                    throw ValidationError("missing value for '\(flag)'")
                }
                flags[setting.key] = value
            }
            return flags
        }
    }

    /// Flags, environment and the configuration file, the file's unknown keys warned
    /// about on standard error; a file that cannot be read stops with one line.
    func sources(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> SettingSources {
        try Self.sources(config: config, flags: try flags, environment: environment)
    }

    /// The settings of any command: `flags` over the environment over the file that
    /// `config` (or `PUSHGATE_CONFIG`) names.
    static func sources(config: String?, flags: [String: String], environment: [String: String]) throws
        -> SettingSources
    {
        var file: ConfigurationFile?
        if let path = config ?? environment[SettingSources.configurationFileVariable], !path.isEmpty {
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
    static func setting(_ setting: AnySetting) -> ArgumentHelp {
        var text = "\(setting.help) Env: \(setting.environmentName). File: \(setting.key)."
        if let value = setting.defaultValue { text += " Default: \(value)." }
        return ArgumentHelp(stringLiteral: text)
    }
}
