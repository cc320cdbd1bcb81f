import ArgumentParser
import Foundation

@main
struct Pushgate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushgate",
        abstract:
            "A self-hosted push gateway: registerSubscription and triggerReplyFinished over a document store, delivered through APNs and FCM.",
        subcommands: [
            ServeCommand.self, KeygenCommand.self, SubscribeCommand.self, TriggerCommand.self, APNsEmulatorCommand.self,
            FCMEmulatorCommand.self, WebPushEmulatorCommand.self,
            OutboxCommand.self, ConfigCommand.self, DoctorCommand.self, EventCommand.self, ResolveCommand.self,
            DecideCommand.self, StatusCommand.self,
            DiagnosticsCommand.self,
            UnsubscribeCommand.self, BackupCommand.self, ExportCommand.self, ImportCommand.self, HookCommand.self,
            ProxyEnvCommand.self, MCPCommand.self, ChannelCommand.self, SayCommand.self, PairCommand.self,
        ],
        defaultSubcommand: nil
    )

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        // The hook's promise (exit 0, one line) holds for its arguments too: Claude
        // Code would show a parse error's usage text and its exit 64 on every event.
        if HookCommand.runsForAnEvent(arguments) {
            do {
                _ = try parseAsRoot(arguments)
            } catch {
                HookCommand.refuse(message(for: error))
            }
        }
        await main(arguments)
    }
}
