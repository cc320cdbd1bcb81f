import Logging
import PushgateCore
import PushgateDelivery
import PushgateInstalledServices
import PushgateProviderKit

extension PushRoutingTable {
    /// One app's table, each given provider the one leaf of its service (no
    /// environments): how tests route through scripted providers, or one service's
    /// real provider beside an unconfigured other.
    public static func services(
        _ providers: [PushServiceID: any PushProvider], logger: Logger = Logger(label: "test")
    ) -> PushRoutingTable {
        PushRoutingTable(
            routes: providers.map { service, provider in
                PushRoute(PushRoute.Key(app: ConfiguredApps.single.defaultApp, service: service), provider: provider)
            },
            formats: .installed, logger: logger)
    }
}
