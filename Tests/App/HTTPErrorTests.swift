import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PushgateCore
import PushgateProviderKit
import PushgateSQLite
import PushgateTesting
import Testing

/// The answers of §5 that the golden examples do not show: paths, methods, sizes,
/// faults inside, health.
@Suite("HTTP errors and health")
struct HTTPErrorTests {
    let registration: JSONValue = [
        "cwd": "/a", "installation_id": "phone", "apns_token": .string(String(repeating: "ab", count: 32)),
    ]

    @Test("an unknown path is 404 NOT_FOUND")
    func notFound() async throws {
        let fixture = try RouterFixture()
        try await fixture.withClient { client in
            let response = try await client.post("/sendMessage", json: registration)
            #expect(response.status == .notFound)
            #expect(response.errorStatus == "NOT_FOUND")
        }
    }

    @Test(
        "another method on a function is 405 with Allow: POST",
        arguments: [HTTPRequest.Method.get, .put, .delete, .patch])
    func methodNotAllowed(method: HTTPRequest.Method) async throws {
        let fixture = try RouterFixture()
        try await fixture.withClient { client in
            for path in ["/registerSubscription", "/triggerReplyFinished"] {
                let response = try await client.execute(uri: path, method: method, headers: RouterFixture.authorized())
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == "POST")
                #expect(response.errorStatus == "METHOD_NOT_ALLOWED")
            }
            let health = try await client.execute(uri: "/healthz", method: .post)
            #expect(health.status == .methodNotAllowed)
            #expect(health.headers[.allow] == "GET, HEAD")
        }
        #expect(try await fixture.allDocuments().isEmpty)
    }

    @Test("a body over 64 KiB is 413 PAYLOAD_TOO_LARGE and stores nothing")
    func payloadTooLarge() async throws {
        let fixture = try RouterFixture()
        try await fixture.withClient { client in
            var body = registration.objectValue!
            body["agent_display_name"] = .string(String(repeating: "x", count: 64 * 1024))
            let response = try await client.post("/registerSubscription", json: .object(body))
            #expect(response.status == .contentTooLarge)
            #expect(response.errorStatus == "PAYLOAD_TOO_LARGE")
            // Just under the limit is read (and refused for the name's length, not the size).
            body["agent_display_name"] = .string(String(repeating: "x", count: 60 * 1024))
            #expect(
                try await client.post("/registerSubscription", json: .object(body)).errorStatus == "INVALID_ARGUMENT")
        }
        #expect(try await fixture.allDocuments().isEmpty)
    }

    @Test("401 answers say how to authenticate")
    func unauthenticated() async throws {
        let fixture = try RouterFixture()
        try await fixture.withClient { client in
            let response = try await client.post("/triggerReplyFinished", json: ["cwd": "/a"], headers: [:])
            #expect(response.status == .unauthorized)
            #expect(response.headers[.wwwAuthenticate] == "Bearer")
        }
    }

    @Test("a fault inside is 500 INTERNAL and tells nothing of it")
    func internalError() async throws {
        let fixture = try RouterFixture()
        try await fixture.withClient(store: FaultyDocumentStore(error: SecretFault())) { client in
            let response = try await client.post("/registerSubscription", json: registration)
            #expect(response.status == .internalServerError)
            #expect(response.errorStatus == "INTERNAL")
            let text = String(buffer: response.body)
            #expect(!text.contains("SecretFault") && !text.contains("disk"))
        }
    }

    @Test("a store that does not answer is 503 UNAVAILABLE, and /healthz says so")
    func storeUnavailable() async throws {
        let fixture = try RouterFixture()
        let faulty = FaultyDocumentStore(error: DocumentStoreError.unavailable("disk I/O error"))
        try await fixture.withClient(store: faulty) { client in
            let response = try await client.post("/triggerReplyFinished", json: ["cwd": "/a"])
            #expect(response.status == .serviceUnavailable)
            #expect(response.errorStatus == "UNAVAILABLE")
            #expect(!String(buffer: response.body).contains("disk"))
            let health = try await client.execute(uri: "/healthz", method: .get)
            #expect(health.status == .serviceUnavailable)
        }
    }

    @Test("/healthz answers 200 when the store answers: the status alone, the backlog only with details")
    func healthy() async throws {
        let fixture = try RouterFixture()
        try await fixture.withClient { client in
            let response = try await client.execute(uri: "/healthz", method: .get)
            #expect(response.status == .ok)
            #expect(response.json == ["status": "ok"], "a stranger learns neither the backlog nor the delivery mode")
            #expect(try await client.execute(uri: "/healthz", method: .head).status == .ok)
        }
        try await fixture.withClient(healthDetails: true) { client in
            let response = try await client.execute(uri: "/healthz", method: .get)
            #expect(response.status == .ok)
            #expect(
                response.json == [
                    "status": "ok", "delivery": "log",
                    "outbox": ["pending": 0, "scheduled": 0, "failed": 0, "expanding": 0],
                ])
        }
    }

    @Test("/healthz says degraded when the push service refused the configuration; the reason with details")
    func degraded() async throws {
        let since = Date(timeIntervalSince1970: 1_795_323_872)
        let provider = ScriptedPushProvider(
            deliveryName: "apns", health: .degraded(provider: "apns", reason: "InvalidProviderToken", since: since))
        let fixture = try RouterFixture(provider: provider)
        try await fixture.withClient { client in
            let response = try await client.execute(uri: "/healthz", method: .get)
            #expect(response.json == ["status": "degraded"], "the reason is the operator's")
        }
        try await fixture.withClient(healthDetails: true) { client in
            let response = try await client.execute(uri: "/healthz", method: .get)
            #expect(response.status == .ok)
            #expect(
                response.json == [
                    "status": "degraded", "delivery": "apns",
                    "outbox": ["pending": 0, "scheduled": 0, "failed": 0, "expanding": 0],
                    "delivery_error": [
                        "provider": "apns", "reason": "InvalidProviderToken", "since": "2026-11-22T05:04:32.000Z",
                    ],
                ]
            )
        }
    }

    @Test("a configuration error is reported in the trigger's answer")
    func configurationErrorAnswer() async throws {
        let token = String(repeating: "ab", count: 32)
        let provider = ScriptedPushProvider(
            outcomes: [token: .configurationError(reason: "BadTopic")], deliveryName: "apns")
        let fixture = try RouterFixture(provider: provider)
        try await fixture.withClient { client in
            _ = try await client.post("/registerSubscription", json: registration)
            let answer = try await client.post("/triggerReplyFinished", json: ["cwd": "/a"]).json?.objectValue
            #expect(answer?["configuration_error"] == "BadTopic")
            #expect(answer?["failure_count"] == 0)
            #expect(answer?["pending_count"] == 1, "kept, to be sent once the configuration is fixed")
            #expect(answer?["removed_count"] == 0)
        }
    }

    @Test("a trigger answers with the provider's outcomes and removals")
    func triggerAnswer() async throws {
        let dead = String(repeating: "de", count: 32)
        let fixture = try RouterFixture(
            provider: ScriptedPushProvider(outcomes: [dead: .tokenInvalid(reason: "Unregistered")]))
        try await fixture.withClient { client in
            _ = try await client.post("/registerSubscription", json: registration)
            _ = try await client.post(
                "/registerSubscription", json: ["cwd": "/a", "installation_id": "old", "apns_token": .string(dead)])
            let response = try await client.post("/triggerReplyFinished", json: ["cwd": "/a", "message_preview": "hi"])
            #expect(response.status == .ok)
            let answer = try #require(response.json?.objectValue)
            #expect(answer["removed_count"] == .number(1))
            #expect(
                answer["responses"]
                    == .array([
                        [
                            "installation_id": "old", "provider": "apns", "success": false,
                            "error": ["reason": "Unregistered", "removed": true],
                        ],
                        ["installation_id": "phone", "provider": "apns", "success": true],
                    ]))
        }
    }
}

private struct SecretFault: Error, CustomStringConvertible {
    var description: String { "SecretFault: disk on fire" }
}

/// A store whose every operation fails with `error`.
private struct FaultyDocumentStore: DocumentStore {
    let error: any Error & Sendable

    func document(at path: DocumentPath) async throws -> Document? { throw error }
    func documents(
        in collection: CollectionPath, selecting fieldMask: [String]?, after afterID: String?, limit: Int?
    ) async throws -> [Document] {
        throw error
    }
    func documents(at paths: [DocumentPath]) async throws -> [Document] { throw error }
    func documents(
        inGroup collectionID: String, under scope: DocumentPath?, where filter: FieldFilter,
        after afterPath: DocumentPath?, limit: Int?
    ) async throws -> [Document] {
        throw error
    }
    func count(inGroup collectionID: String) async throws -> Int { throw error }
    func count(in collection: CollectionPath, upTo limit: Int) async throws -> Int { throw error }
    func counts(in collections: [CollectionPath]) async throws -> [CollectionPath: Int] { throw error }
    func commit(_ writes: [DocumentWrite]) async throws -> [WriteResult] { throw error }
    func checkHealth() async throws { throw error }
    func checkWritable() async throws { throw error }
}
