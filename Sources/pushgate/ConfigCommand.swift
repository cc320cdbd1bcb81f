import ArgumentParser
import Foundation
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
            throw StartFailure(error.description)
        }
        let rows = sources.effective()
        let width = rows.map(\.setting.key.count).max() ?? 0
        for row in rows {
            let key = row.setting.key.padding(toLength: width, withPad: " ", startingAt: 0)
            print("\(key)  \(row.value ?? "-")  (\(row.origin))")
        }
    }
}
