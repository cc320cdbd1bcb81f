import ArgumentParser

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
            DiagnosticsCommand.self,
            UnsubscribeCommand.self, BackupCommand.self, ExportCommand.self, ImportCommand.self, HookCommand.self,
            ProxyEnvCommand.self,
        ],
        defaultSubcommand: nil
    )
}
