import PushgateCore
import Testing

/// The contract of ``DocumentStore``, checked on every implementation.
@Suite("DocumentStore conformance")
struct DocumentStoreConformanceTests {
    let server = try! DocumentPath("servers", "s1")

    func path(_ raw: String) -> DocumentPath { try! DocumentPath(rawValue: raw) }

    @Test("set, get, merge and delete one document", arguments: StoreKind.allCases)
    func roundTrip(kind: StoreKind) async throws {
        try await kind.withStore { store in
            #expect(try await store.document(at: server) == nil)
            let created = try await store.set(server, ["name": "first", "createdAt": .valueIfAbsent("t1")])
            #expect(created == WriteResult(existed: false, applied: true))
            let updated = try await store.set(server, ["other": .value(.number(2)), "createdAt": .valueIfAbsent("t2")])
            #expect(updated == WriteResult(existed: true, applied: true))
            let document = try await store.document(at: server)
            #expect(document?.fields == ["name": "first", "other": .number(2), "createdAt": "t1"])

            try await store.set(server, ["only": .value(true)], merge: false)
            #expect(try await store.document(at: server)?.fields == ["only": true])

            #expect(try await store.delete(server) == WriteResult(existed: true, applied: true))
            #expect(try await store.document(at: server) == nil)
            #expect(try await store.delete(server) == WriteResult(existed: false, applied: true))
        }
    }

    @Test("every JSON kind survives a round trip", arguments: StoreKind.allCases)
    func jsonKinds(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let fields: [String: JSONValue] = [
                "null": .null, "bool": true, "number": .number(-1.5), "text": "ünï \"quoted\" / ✓",
                "array": .array([.number(1), "two", .null]), "object": .object(["nested": .object(["deep": false])]),
            ]
            try await store.set(server, fields.mapValues(FieldValue.value))
            #expect(try await store.document(at: server)?.fields == fields)
        }
    }

    @Test("a collection lists its own documents in id order, not its subcollections'", arguments: StoreKind.allCases)
    func listCollection(kind: StoreKind) async throws {
        try await kind.withStore { store in
            for id in ["b", "a", "c", "B", "a-1"] {
                try await store.set(path("servers/s1/agents/x/devices/\(id)"), ["id": .value(.string(id))])
            }
            try await store.set(path("servers/s1/agents/y/devices/z"), ["id": "z"])
            try await store.set(path("servers/s1/agents/x"), ["cwd": "/x"])
            let devices = try await store.documents(in: path("servers/s1/agents/x").collection("devices"))
            #expect(devices.map(\.path.documentID) == ["B", "a", "a-1", "b", "c"])
            let agents = try await store.documents(in: server.collection("agents"))
            #expect(agents.map(\.path.rawValue) == ["servers/s1/agents/x"])
            #expect(try await store.documents(in: path("servers/s2/agents/x").collection("devices")).isEmpty)
        }
    }

    @Test("a collection reads a page at a time, after an id, in byte order", arguments: StoreKind.allCases)
    func pagedCollection(kind: StoreKind) async throws {
        try await kind.withStore { store in
            for id in ["b", "a", "c", "B", "a-1"] {
                try await store.set(path("servers/s1/agents/x/devices/\(id)"), ["id": .value(.string(id))])
            }
            try await store.set(path("servers/s1/agents/x/devices/b/deeper/q"), ["below": .value(true)])
            // Collections whose names start with this one's, on either side of its paths.
            try await store.set(path("servers/s1/agents/x/devices-old/q"), ["beside": .value(true)])
            try await store.set(path("servers/s1/agents/x/devicesz/q"), ["beside": .value(true)])
            let devices = try path("servers/s1/agents/x").collection("devices")
            let first = try await store.documents(in: devices, after: nil, limit: 2)
            #expect(first.map(\.path.documentID) == ["B", "a"])
            #expect(first.map(\.fields) == [["id": "B"], ["id": "a"]], "whole documents")
            let second = try await store.documents(in: devices, after: "a", limit: 2)
            #expect(second.map(\.path.documentID) == ["a-1", "b"])
            #expect(try await store.documents(in: devices, after: "b", limit: 2).map(\.path.documentID) == ["c"])
            #expect(try await store.documents(in: devices, after: "c", limit: 2).isEmpty)
            #expect(try await store.documents(in: devices, after: "a0", limit: 9).map(\.path.documentID) == ["b", "c"])
            // A fan-out's page: a few fields of each, after a cursor.
            let masked = try await store.documents(in: devices, selecting: ["id", "none"], after: "a", limit: 1)
            #expect(masked.map(\.path.documentID) == ["a-1"] && masked.map(\.fields) == [["id": "a-1"]])
            #expect(try await store.documents(in: devices, selecting: [], after: nil, limit: 9).count == 5)
        }
    }

    @Test("many documents are read at once by path; missing ones are left out", arguments: StoreKind.allCases)
    func readByPaths(kind: StoreKind) async throws {
        try await kind.withStore { store in
            try await store.set(path("servers/s1/agents/a"), ["cwd": "/a"])
            try await store.set(path("servers/s1/agents/b"), ["cwd": "/b"])
            let found = try await store.documents(at: [
                path("servers/s1/agents/b"), path("servers/s1/agents/missing"), path("servers/s1/agents/a"),
                path("servers/s1/agents/a"),
            ])
            #expect(Set(found.map(\.path.rawValue)) == ["servers/s1/agents/a", "servers/s1/agents/b"])
            #expect(found.count == 2)
            #expect(found.first { $0.path.documentID == "b" }?.fields == ["cwd": "/b"])
            #expect(try await store.documents(at: []).isEmpty)
        }
    }

    @Test("several collections are counted in one read", arguments: StoreKind.allCases)
    func countsOfCollections(kind: StoreKind) async throws {
        try await kind.withStore { store in
            for raw in [
                "servers/s1/agents/a/devices/1", "servers/s1/agents/a/devices/2", "servers/s1/agents/b/devices/1",
                "servers/s1/agents/a/devices/1/deeper/x", "servers/s1/agents/c/other/1",
            ] {
                try await store.set(path(raw), ["at": .value(.string(raw))])
            }
            let devicesOf = { (agent: String) in
                try CollectionPath(segments: ["servers", "s1", "agents", agent, "devices"])
            }
            let counts = try await store.counts(in: [devicesOf("a"), devicesOf("b"), devicesOf("c")])
            #expect(counts == [try devicesOf("a"): 2, try devicesOf("b"): 1])
            #expect(try await store.counts(in: []).isEmpty)
        }
    }

    @Test("a field mask returns only those fields, types intact, absent ones left out", arguments: StoreKind.allCases)
    func fieldMask(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let fields: [String: JSONValue] = [
                "text": "ünï", "int": 7, "real": .number(-1.5), "yes": true, "no": false, "null": .null,
                "array": [1, "two"], "object": ["a": ["b": .null]], "other": "not asked",
            ]
            try await store.set(path("servers/s1/agents/a/devices/d1"), fields.mapValues(FieldValue.value))
            try await store.set(path("servers/s1/agents/a/devices/d2"), ["text": "only"])
            let mask = ["text", "int", "real", "yes", "no", "null", "array", "object", "missing"]
            let documents = try await store.documents(
                in: path("servers/s1/agents/a").collection("devices"), selecting: mask)
            var expected = fields
            expected["other"] = nil
            #expect(documents.map(\.fields) == [expected, ["text": "only"]])
            #expect(
                documents.map(\.path.rawValue) == ["servers/s1/agents/a/devices/d1", "servers/s1/agents/a/devices/d2"])
            let idsOnly = try await store.documents(
                in: path("servers/s1/agents/a").collection("devices"), selecting: [])
            #expect(idsOnly.map(\.fields) == [[:], [:]], "an empty mask: the documents, none of their fields")
        }
    }

    @Test("a collection-group query finds by document id within a scope", arguments: StoreKind.allCases)
    func groupByDocumentID(kind: StoreKind) async throws {
        try await kind.withStore { store in
            for raw in [
                "servers/s1/agents/a/devices/phone", "servers/s1/agents/b/devices/phone",
                "servers/s1/agents/b/devices/tablet", "servers/s10/agents/a/devices/phone",
                "servers/s2/agents/a/devices/phone", "servers/s1/agents/phone",
            ] {
                try await store.set(path(raw), ["at": .value(.string(raw))])
            }
            let inScope = try await store.documents(inGroup: "devices", under: server, where: .documentID("phone"))
            #expect(
                inScope.map(\.path.rawValue) == [
                    "servers/s1/agents/a/devices/phone", "servers/s1/agents/b/devices/phone",
                ])
            let everywhere = try await store.documents(inGroup: "devices", under: nil, where: .documentID("phone"))
            #expect(everywhere.count == 4)
            #expect(try await store.count(inGroup: "devices") == 5)
            #expect(try await store.count(inGroup: "agents") == 1)
            #expect(try await store.count(inGroup: "nothing") == 0)
            // Counts one collection only, and no further than asked.
            let agentB = path("servers/s1/agents/b/devices/phone").parent
            #expect(try await store.count(in: agentB, upTo: 10) == 2)
            #expect(try await store.count(in: agentB, upTo: 1) == 1)
            #expect(try await store.count(in: path("servers/s3/agents/a").parent, upTo: 10) == 0)
            // A page: after a path, at most so many.
            let paged = try await store.documents(
                inGroup: "devices", under: nil, where: .documentID("phone"),
                after: path("servers/s1/agents/a/devices/phone"), limit: 2)
            #expect(
                paged.map(\.path.rawValue) == [
                    "servers/s1/agents/b/devices/phone", "servers/s10/agents/a/devices/phone",
                ])
            let rest = try await store.documents(
                inGroup: "devices", under: server, where: .documentID("phone"),
                after: path("servers/s1/agents/b/devices/phone"), limit: 2)
            #expect(rest.isEmpty, "nothing after the last one within the scope")
            // Several ids at once, and every document of a group.
            let some = try await store.documents(
                inGroup: "devices", under: server, where: .documentIDIn(["tablet", "phone", "absent"]))
            #expect(
                some.map(\.path.rawValue) == [
                    "servers/s1/agents/a/devices/phone", "servers/s1/agents/b/devices/phone",
                    "servers/s1/agents/b/devices/tablet",
                ])
            #expect(try await store.documents(inGroup: "devices", under: server, where: .documentIDIn([])).isEmpty)
            let all = try await store.documents(inGroup: "devices", under: nil, where: .everyDocument)
            #expect(all.count == 5 && all.map(\.path.rawValue) == all.map(\.path.rawValue).sorted())
        }
    }

    @Test("a collection-group query finds by field value, types compared exactly", arguments: StoreKind.allCases)
    func groupByField(kind: StoreKind) async throws {
        try await kind.withStore { store in
            try await store.set(path("servers/s1/agents/a/devices/d1"), ["token": "t1"])
            try await store.set(path("servers/s1/agents/b/devices/d2"), ["token": "t1"])
            try await store.set(path("servers/s1/agents/b/devices/d3"), ["token": "t2"])
            try await store.set(path("servers/s1/agents/b/devices/d4"), ["flag": .value(.number(1))])
            try await store.set(path("servers/s1/agents/b/devices/d5"), ["flag": .value(true)])
            try await store.set(path("servers/s1/agents/b/other/d6"), ["token": "t1"])
            let found = try await store.documents(inGroup: "devices", under: nil, where: .fieldEquals("token", "t1"))
            #expect(found.map(\.path.documentID) == ["d1", "d2"])
            let flagged = try await store.documents(inGroup: "devices", under: nil, where: .fieldEquals("flag", true))
            #expect(flagged.map(\.path.documentID) == ["d5"])
        }
    }

    @Test("a collection-group query finds strings sorting before a bound, byte by byte", arguments: StoreKind.allCases)
    func groupByStringBefore(kind: StoreKind) async throws {
        try await kind.withStore { store in
            try await store.set(path("servers/s1/agents/a/devices/old"), ["updatedAt": "2026-08-01T00:00:00.000Z"])
            try await store.set(path("servers/s1/agents/a/devices/new"), ["updatedAt": "2026-11-22T00:00:00.000Z"])
            try await store.set(path("servers/s2/agents/b/devices/older"), ["updatedAt": "2026-01-01T10:00:00.000Z"])
            try await store.set(path("servers/s2/agents/b/devices/bound"), ["updatedAt": "2026-09-01T00:00:00.000Z"])
            try await store.set(path("servers/s2/agents/b/devices/number"), ["updatedAt": .value(.number(1))])
            try await store.set(path("servers/s2/agents/b/devices/none"), ["token": "t"])
            // Upper case sorts before lower case in bytes (not in most collations).
            try await store.set(path("servers/s2/agents/b/devices/upper"), ["updatedAt": "2026-09-01T00:00:00.000Z"])
            try await store.set(path("servers/s2/agents/b/devices/lower"), ["updatedAt": "2026-09-01t00:00:00.000Z"])
            let found = try await store.documents(
                inGroup: "devices", under: nil, where: .stringBefore("updatedAt", "2026-09-01T00:00:00.000Z"))
            #expect(found.map(\.path.documentID) == ["old", "older"])
            let bytes = try await store.documents(
                inGroup: "devices", under: path("servers/s2"), where: .stringBefore("updatedAt", "2026-09-01a"))
            #expect(Set(bytes.map(\.path.documentID)) == ["older", "bound", "upper"])
        }
    }

    @Test("a batch applies in order and reports each write", arguments: StoreKind.allCases)
    func batch(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let device = path("servers/s1/agents/a/devices/d1")
            try await store.set(device, ["token": "old"])
            let results = try await store.commit([
                .set(server, ["n": "1"]),
                .delete(device, if: .fieldEquals("token", "other")),
                .set(path("servers/s1/agents/a"), ["x": "y"], if: .exists),
                .set(server, ["n": "2"]),
            ])
            #expect(results.map(\.applied) == [true, false, false, true])
            #expect(results.map(\.existed) == [false, true, false, true])
            #expect(try await store.document(at: device)?.fields == ["token": "old"])
            #expect(try await store.document(at: path("servers/s1/agents/a")) == nil)
            #expect(try await store.document(at: server)?.fields == ["n": "2"])
        }
    }

    @Test("a failing batch leaves nothing of itself", arguments: StoreKind.allCases)
    func atomicity(kind: StoreKind) async throws {
        try await kind.withStore { store in
            try await store.set(server, ["kept": "yes"])
            await #expect(throws: (any Error).self) {
                try await store.commit([
                    .set(server, ["kept": "no"]),
                    .set(path("servers/s2"), ["new": "doc"]),
                    // JSON has no NaN: this write cannot be stored.
                    .set(path("servers/s3"), ["bad": .value(.number(.nan))]),
                ])
            }
            #expect(try await store.document(at: server)?.fields == ["kept": "yes"])
            #expect(try await store.document(at: path("servers/s2")) == nil)
            #expect(try await store.document(at: path("servers/s3")) == nil)
        }
    }

    @Test(
        "a transaction's update reads what its writes depend on; they commit with its outcome",
        arguments: StoreKind.allCases)
    func transaction(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let agent = path("servers/s1/agents/a")
            let agentDevices = try agent.collection("devices")
            let phone = try agentDevices.document("phone")
            for raw in ["servers/s1/agents/a/devices/phone", "servers/s1/agents/b/devices/phone"] {
                try await store.set(path(raw), ["token": "old"])
            }
            let server = self.server
            let done = try await store.runTransaction { transaction in
                let existing = try transaction.documents(at: [server, agent, phone])
                let devices = try transaction.count(in: agentDevices, upTo: 10)
                let phones = try transaction.documents(inGroup: "devices", under: server, where: .documentID("phone"))
                let writes = phones.map { DocumentWrite.set($0.path, ["token": "new"], if: .exists) }
                return (
                    writes: writes + [.set(server, ["devices": .value(.number(Double(devices)))])],
                    outcome: existing.map(\.path.rawValue).sorted()
                )
            }
            #expect(done.outcome == ["servers/s1/agents/a/devices/phone"])
            #expect(done.results.map(\.existed) == [true, true, false])
            #expect(try await store.document(at: server)?.fields == ["devices": .number(1)])
            let phones = try await store.documents(inGroup: "devices", under: server, where: .documentID("phone"))
            #expect(phones.map(\.fields) == [["token": "new"], ["token": "new"]])
        }
    }

    @Test("an update that refuses stores nothing, and its own error reaches the caller", arguments: StoreKind.allCases)
    func refusingTransaction(kind: StoreKind) async throws {
        struct Refused: Error, Equatable {}
        try await kind.withStore { store in
            try await store.set(server, ["kept": "yes"])
            let server = self.server
            await #expect(throws: Refused()) {
                try await store.runTransaction { transaction -> (writes: [DocumentWrite], outcome: Void) in
                    _ = try transaction.documents(at: [server])
                    throw Refused()
                }
            }
            #expect(try await store.document(at: server)?.fields == ["kept": "yes"])
        }
    }

    @Test("concurrent writers all land", arguments: StoreKind.allCases)
    func concurrentWriters(kind: StoreKind) async throws {
        try await kind.withStore { store in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<8 {
                    group.addTask {
                        for item in 0..<25 {
                            try await store.commit([
                                .set(
                                    try DocumentPath(rawValue: "servers/s1/agents/w\(writer)/devices/d\(item)"),
                                    ["n": "x"]),
                                .set(
                                    try DocumentPath(rawValue: "servers/s1/agents/w\(writer)"),
                                    ["count": .value(.number(Double(item)))]),
                            ])
                        }
                    }
                }
                try await group.waitForAll()
            }
            for writer in 0..<8 {
                let agent = path("servers/s1/agents/w\(writer)")
                #expect(try await store.documents(in: agent.collection("devices")).count == 25)
                #expect(try await store.document(at: agent)?.fields["count"] == .number(24))
            }
        }
    }

    @Test("invalid paths and field names are refused")
    func invalidInput() async throws {
        #expect(throws: DocumentStoreError.self) { try DocumentPath(rawValue: "servers/s1/agents") }
        #expect(throws: DocumentStoreError.self) { try DocumentPath(rawValue: "servers//agents/a") }
        #expect(throws: DocumentStoreError.self) { try DocumentPath(rawValue: "servers/__x__") }
        try await StoreKind.sqlite.withStore { store in
            await #expect(throws: DocumentStoreError.self) {
                try await store.documents(inGroup: "devices", under: nil, where: .fieldEquals("a') OR 1=1 --", "x"))
            }
        }
    }
}
