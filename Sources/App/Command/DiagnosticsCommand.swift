import ArgumentParser

struct DiagnosticsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diagnostics",
        abstract: "Show this secret's agents and devices (diagnostics)."
    )

    @OptionGroup var gateway: GatewayCallOptions

    @Option(help: "One device instead of the whole namespace.")
    var installationId: String?

    @Option(help: "Seconds to wait for the answer.")
    var timeout: Double = 10

    func run() async throws {
        try await gateway.client(timeout: timeout).get(
            "diagnostics", query: installationId.map { ["installation_id": $0] } ?? [:])
    }
}
