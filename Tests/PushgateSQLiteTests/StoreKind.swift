import PushgateCore
import PushgateSQLite
import PushgateTesting
import Testing

/// The stores every conformance test runs against.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case sqlite
    case memory

    var testDescription: String { rawValue }

    /// Runs `body` with a new, empty store of this kind.
    func withStore(_ body: (any DocumentStore) async throws -> Void) async throws {
        switch self {
        case .memory:
            try await body(InMemoryDocumentStore())
        case .sqlite:
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            try await body(SQLiteDocumentStore(path: directory.path("store.sqlite")))
        }
    }
}
