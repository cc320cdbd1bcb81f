import Foundation
import Logging
import PushgateCore
import PushgateFunctions
import PushgateSQLite
import PushgateTesting

/// A real SQLite store in a temporary directory, the two functions over it, and a
/// fixed clock that tests can move.
final class FunctionsFixture: Sendable {
    let directory: TemporaryDirectory
    let store: SQLiteDocumentStore
    let provider: ScriptedPushProvider
    let clock = TestClock()
    let secret = PushSecret("pushgate-example-secret-0001")!

    init(outcomes: [String: DeliveryOutcome] = [:], fanOut: FanOut = FanOut()) throws {
        directory = try TemporaryDirectory()
        store = try SQLiteDocumentStore(path: directory.path("store.sqlite"))
        provider = ScriptedPushProvider(outcomes: outcomes)
        self.fanOut = fanOut
    }

    private let fanOut: FanOut

    deinit { directory.remove() }

    var serverKey: ServerKey { secret.serverKey }

    func register(_ body: [String: JSONValue]) async throws -> RegisterSubscriptionAnswer {
        let function = RegisterSubscriptionFunction(store: store, now: clock.now)
        return try await function(secret: secret, RegisterSubscriptionRequest(fields: RequestFields(body)))
    }

    func trigger(_ body: [String: JSONValue], provider: (any PushProvider)? = nil) async throws
        -> TriggerReplyFinishedAnswer
    {
        let function = TriggerReplyFinishedFunction(
            store: store,
            provider: provider ?? self.provider,
            fanOut: fanOut,
            now: clock.now,
            logger: Logger(label: "test")
        )
        return try await function(secret: secret, TriggerReplyFinishedRequest(fields: RequestFields(body)))
    }

    /// A device token, 64 hex characters, different for each `n`.
    static func apnsToken(_ n: Int) -> String {
        String(format: "%064x", n)
    }

    func device(_ installationID: String, cwd: String) throws -> DocumentPath {
        try NamespacePaths.device(installationID, of: AgentKey(cwd: cwd), of: serverKey)
    }
}
