import ArgumentParser
import Foundation
import PushgateCore
import PushgateServer

struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Print each setting with its origin, secrets masked."
    )

    @OptionGroup var settings: GatewaySettingsOptions

    func run() throws {
        let sources = try settings.sources()
        do {
            try sources.gatewayConfiguration().validate()
        } catch {
            throw CommandFailure(error.description)
        }
        let rows = sources.effective()
        let width = rows.map(\.setting.key.count).max() ?? 0
        for row in rows {
            let key = row.setting.key.padding(toLength: width, withPad: " ", startingAt: 0)
            print("\(key)  \(row.value ?? "-")  (\(row.origin))")
        }
        // Each app's own keys (the rest are the settings above); a path is no secret,
        // the files it names are, and they are not printed.
        for app in sources.file?.apps ?? [] {
            let keys = app.values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            print(
                "app \(app.id)  \(keys.isEmpty ? "(every key from the settings above)" : keys.joined(separator: " "))")
        }
    }
}
