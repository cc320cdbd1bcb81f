import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PushgateCore
import PushgateDelivery
import PushgateFunctions
import PushgateMemory
import PushgateProviderKit
import PushgateSQLite
import PushgateServer
import PushgateTesting

/// The real router over an in-memory store and outbox, or a real SQLite file in a
/// temporary directory (`sqliteFile`) for what only a database shows.
final class RouterFixture: Sendable {
    static let secret = "pushgate-example-secret-0001-0123"

    /// The SQLite file's folder, with `sqliteFile`.
    let directory: TemporaryDirectory?
    let store: any DocumentStore
    let outbox: any Outbox
    let provider: ScriptedPushProvider
    /// Every stored document, ordered by path, as the store at hand lists them.
    private let listDocuments: @Sendable () async throws -> [Document]

    init(provider: ScriptedPushProvider = ScriptedPushProvider(), sqliteFile: Bool = false) throws {
        if sqliteFile {
            let directory = try TemporaryDirectory()
            let database = try SQLiteDatabase(path: directory.path("store.sqlite"))
            self.directory = directory
            let store = SQLiteDocumentStore(database: database)
            self.store = store
            outbox = SQLiteOutbox(database: database)
            listDocuments = { try await store.allDocuments() }
        } else {
            directory = nil
            let store = InMemoryDocumentStore()
            self.store = store
            outbox = InMemoryOutbox(documents: store)
            listDocuments = { await store.allDocuments() }
        }
        self.provider = provider
    }

    deinit { directory?.remove() }

    /// Every stored document, ordered by path: to check that a call changed nothing.
    func allDocuments() async throws -> [Document] { try await listDocuments() }

    /// Runs `body` with a client of the router built over `store` (this fixture's by default).
    func withClient<Value: Sendable>(
        store: (any DocumentStore)? = nil,
        readiness: Readiness = Readiness(),
        healthDetails: Bool = false,
        admission: AdmissionPolicy = AdmissionPolicy(),
        rateLimiter: RateLimiter? = nil,
        servesConsole: Bool = false,
        corsOrigins: Set<String> = [],
        documents: [String: JSONValue] = [:],
        testing: TestingSetup = .router,
        _ body: @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        // Answers show the first try (the scripted provider answers at once), however
        // long a loaded machine makes it take.
        var policy = DeliveryPolicy()
        policy.triggerWait = .seconds(60)
        let parts = GatewayParts(
            store: store ?? self.store,
            outbox: outbox,
            provider: provider,
            documents: documents,
            policy: policy,
            admission: admission,
            logger: Logger(label: "test")
        )
        let router = buildRouter(
            parts: parts, readiness: readiness, healthDetails: healthDetails, servesConsole: servesConsole,
            corsOrigins: corsOrigins, rateLimiter: rateLimiter,
            logger: Logger(label: "test"))
        return try await Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
            .test(testing, body)
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
