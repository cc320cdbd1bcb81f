import NIOConcurrencyHelpers
import PushgateAgentHooks
import PushgateAgentSide
import PushgateCore

/// A gateway that refuses every trigger with `status` (`nil`: gives no answer at
/// all), and records the events it is asked to resolve.
final class RefusingGateway: AgentGateway, Sendable {
    let baseURL = "https://push.example.test"
    let serverKey = PushSecret("fake-gateway-secret-000000000000000001")!.serverKey
    let status: UInt?
    let resolved = NIOLockedValueBox<[String]>([])

    init(status: UInt?) {
        self.status = status
    }

    func post(_ function: GatewayFunction, _ body: [String: JSONValue], timeout: Duration) async throws
        -> GatewayReply
    {
        if function == .resolveEvent {
            resolved.withLockedValue { $0.append(body["event_id"]?.stringValue ?? "") }
            return FakeGateway.reply(["resolution": "expired", "already_resolved": false])
        }
        guard let status else { throw GatewayUnreachable(description: "no answer") }
        return FakeGateway.refusal(status, "RESOURCE_EXHAUSTED", nil)
    }

    func get(_ function: GatewayFunction, query: [String: String], timeout: Duration) async throws -> GatewayReply {
        GatewayReply(status: 404, body: [])
    }
}
