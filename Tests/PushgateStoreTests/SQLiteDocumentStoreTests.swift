import Foundation
import GRDB
import PushgateCore
import PushgateSQLite
import PushgateTesting
import Testing

/// What only the SQLite store has: a file, WAL, migrations, indexes.
@Suite("SQLite document store")
struct SQLiteDocumentStoreTests {
    @Test("documents persist across closing and reopening the file")
    func persistence() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path("store.sqlite")
        let path = try DocumentPath(rawValue: "servers/s1/agents/a/devices/d1")
        do {
            let store = try SQLiteDocumentStore(path: file)
            try await store.set(path, ["apnsToken": "abcd"])
        }
        let reopened = try SQLiteDocumentStore(path: file)
        #expect(try await reopened.document(at: path)?.fields == ["apnsToken": "abcd"])
    }

    @Test("the database is in WAL mode")
    func walMode() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteDocumentStore(path: directory.path("store.sqlite"))
        #expect(try await store.journalMode() == "wal")
    }

    @Test("listing a collection and a collection group use an index, not a scan")
    func indexes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteDocumentStore(path: directory.path("store.sqlite"))
        let list = try await store.queryPlan(
            "SELECT path, fields FROM documents WHERE parent = ? ORDER BY document_id",
            arguments: ["servers/s/agents/a/devices"]
        )
        #expect(list.contains { $0.contains("USING INDEX documents_by_parent") }, "\(list)")
        #expect(!list.contains { $0.hasPrefix("SCAN") }, "\(list)")
        let group = try await store.queryPlan(
            "SELECT path, fields FROM documents WHERE collection_id = ? AND document_id = ? AND path > ? AND path < ? ORDER BY path",
            arguments: ["devices", "phone", "servers/s/", "servers/s0"]
        )
        #expect(!group.contains { $0.hasPrefix("SCAN") }, "\(group)")
    }

    @Test("the JSON column refuses what is not a JSON object")
    func jsonCheck() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path("store.sqlite")
        let store = try SQLiteDocumentStore(path: file)
        // Another client on the same file: the schema's CHECK is what is under test.
        let client = try DatabaseQueue(path: file)
        let insert =
            "INSERT INTO documents (path, parent, collection_id, document_id, fields) VALUES (?, 'servers', 'servers', ?, ?)"
        for (id, fields) in [("x", "[1, 2]"), ("y", "{not json"), ("z", "\"text\"")] {
            #expect(throws: DatabaseError.self) {
                try client.write { db in try db.execute(sql: insert, arguments: ["servers/\(id)", id, fields]) }
            }
        }
        #expect(try await store.allDocuments().isEmpty)
    }

    @Test("two stores on one file (as two processes) write without losing a write")
    func twoConnections() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path("store.sqlite")
        let first = try SQLiteDocumentStore(path: file)
        let second = try SQLiteDocumentStore(path: file)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, store) in [first, second].enumerated() {
                group.addTask {
                    for item in 0..<50 {
                        try await store.set(try DocumentPath(rawValue: "servers/s\(index)/agents/a\(item)"), ["n": "x"])
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await first.allDocuments().count == 100)
    }

    @Test("a file that cannot be opened is a clear error")
    func unopenable() {
        #expect {
            try SQLiteDocumentStore(path: "/nonexistent-directory/store.sqlite")
        } throws: { error in
            "\(error)".contains("cannot open the SQLite database at /nonexistent-directory/store.sqlite")
        }
    }

}
