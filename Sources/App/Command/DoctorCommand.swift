import ArgumentParser
import Foundation
import Logging
import PushgateCore
import PushgateProviderKit
import PushgateServer

struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check keys, APNs, FCM and the database; one line each.",
        discussion: """
            Reads the settings as `pushgate serve` would (flags, PUSHGATE_* variables, --config, defaults), \
            then checks each part without starting the gateway and without sending a push. Exit status 1 \
            when a check fails.
            """
    )

    @OptionGroup var settings: GatewaySettingsOptions

    func run() async throws {
        var logger = Logger(label: "pushgate-doctor")
        logger.logLevel = .critical
        let checks = await GatewayDoctor.checks(try settings.sources(), logger: logger)
        for check in checks { print(check.line) }
        if checks.contains(where: { $0.outcome == .failed }) { throw ExitCode.failure }
    }
}
