import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PushgateCore
import PushgateSQLite
import PushgateServer
import PushgateTesting

/// The real router over a real SQLite file in a temporary directory.
final class RouterFixture: Sendable {
    static let secret = "pushgate-example-secret-0001"

    let directory: TemporaryDirectory
    let store: SQLiteDocumentStore
    let outbox: SQLiteOutbox
    let provider: ScriptedPushProvider

    init(provider: ScriptedPushProvider = ScriptedPushProvider()) throws {
        directory = try TemporaryDirectory()
        let database = try SQLiteDatabase(path: directory.path("store.sqlite"))
        store = SQLiteDocumentStore(database: database)
        outbox = SQLiteOutbox(database: database)
        self.provider = provider
    }

    deinit { directory.remove() }

    /// Runs `body` with a client of the router built over `store` (this fixture's by default).
    func withClient<Value: Sendable>(
        store: (any DocumentStore)? = nil,
        readiness: Readiness = Readiness(),
        _ body: @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        let parts = GatewayParts(
            store: store ?? self.store,
            outbox: outbox,
            provider: provider,
            logger: Logger(label: "test")
        )
        let router = buildRouter(parts: parts, readiness: readiness, logger: Logger(label: "test"))
        return try await Application(router: router).test(.router, body)
    }

    static func authorized(_ secret: String = secret) -> HTTPFields {
        [.authorization: "Bearer \(secret)", .contentType: "application/json"]
    }
}

extension TestClientProtocol {
    /// POSTs a JSON body with the fixture's secret.
    func post(_ uri: String, json: JSONValue, headers: HTTPFields = RouterFixture.authorized()) async throws
        -> TestResponse
    {
        try await execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(bytes: try json.encodedData()))
    }
}

extension TestResponse {
    /// The body parsed as JSON.
    var json: JSONValue? {
        try? JSONValue.parse(Array(body.readableBytesView))
    }

    /// `error.status` of an error answer.
    var errorStatus: String? {
        json?.objectValue?["error"]?.objectValue?["status"]?.stringValue
    }
}
