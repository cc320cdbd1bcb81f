import ArgumentParser
import Foundation
import Hummingbird
import Logging
import NIOCore
import PushgateCore
import PushgateDelivery
import PushgateFunctions
import PushgateServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the gateway until SIGTERM or SIGINT.",
        discussion: """
            Each setting is read from its flag, else its PUSHGATE_* variable, else the configuration file \
            (--config), else its default. `pushgate config` shows the result.
            """
    )

    @OptionGroup var settings: GatewaySettingsOptions

    func run() async throws {
        let configuration: GatewayConfiguration
        let setup: GatewaySetup
        do {
            configuration = try settings.sources().gatewayConfiguration()
            setup = try configuration.setup()
        } catch let error as ConfigurationError {
            throw CommandFailure(error.description)
        }
        let logger = configuration.log.logger()
        do {
            // The grace period, then 3 s for the rest of the stop at most: out within
            // grace + 5 s, with room for a busy machine to get round to the exit.
            ShutdownWatchdog.arm(limit: setup.delivery.shutdownGrace + .seconds(3), logger: logger)
            let application = try await buildApplication(setup: setup, logger: logger)
            try await application.runService()
        } catch let error as DocumentStoreError {
            throw CommandFailure(error.description)
        } catch let error as ConfigurationError {
            throw CommandFailure(error.description)
        } catch let error as ListenFailure {
            throw CommandFailure(error.description)
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw CommandFailure("cannot listen on \(configuration.host):\(configuration.port): the address is in use")
        } catch let error as IOError {
            throw CommandFailure("cannot listen on \(configuration.host):\(configuration.port): \(error)")
        }
    }
}
