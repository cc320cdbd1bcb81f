import PushgateCore
import PushgateHTTP2

/// Where a registered endpoint's host name leads, checked at registration: a name
/// that resolves to a loopback, private, link-local, multicast or unspecified address
/// is refused. A name that does not resolve in time is accepted (DNS may be down):
/// every connection checks again (``WebPushOrigins``).
enum EndpointVetting {
    /// How long a registration waits for the look-up: within the app's patience.
    static let timeout = Duration.seconds(2)

    static func check(_ stored: String, field: String) async throws(FunctionError) {
        guard let endpoint = WebPushSubscription(stored: stored)?.endpoint,
            EndpointAddressRule.literal(endpoint.host) == nil
        else { return }  // a literal was checked with the body
        guard
            let addresses = try? await HostResolver.shared.resolve(
                host: endpoint.host, port: endpoint.port, timeout: timeout)
        else { return }
        if addresses.contains(where: { !EndpointAddressRule.isPublic($0.ipBytes) }) {
            throw .invalidArgument(
                "'\(field)' \(WebPushEndpoint.Problem.resolvesPrivately(endpoint.host).description)", field: field)
        }
    }
}
