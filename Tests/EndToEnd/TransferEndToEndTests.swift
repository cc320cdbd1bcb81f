import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import PushgateAPNs
import PushgateCore
import PushgateDumpFormat
import PushgateTesting
import Synchronization
import Testing

/// `pushgate backup`, `export` and `import` as real processes, on stores a real
/// gateway wrote, and gateways started on what they made.
@Suite("End to end: backup, export, import", .serialized)
struct TransferEndToEndTests {
    static let secret = "transfer-end-to-end-secret-0123456789"
    static let cwd = "/srv/moving-agent"
    let directory: URL
    /// Removed with this instance, after its test.
    private let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory("e2e-transfer")
        directory = scratch.url
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    static func token(_ n: Int) -> String { String(format: "%064x", 0xABC000 + n) }

    func pushgate(_ arguments: [String], environment: [String: String] = [:]) async throws -> BuiltExecutable.Result {
        try await BuiltExecutable.run(
            arguments,
            environment: ["CODEAGENTS_PUSH_SECRET": Self.secret].merging(environment) { $1 })
    }

    /// The dump's records without its header (which says when it was made): what two
    /// stores holding the same must print alike.
    func canonicalDump(_ database: String) async throws -> [Substring] {
        let result = try await pushgate(["export", "--database", database])
        try #require(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        try #require(lines.first?.hasPrefix(#"{"pushgate_dump":1,"exported_at":""#) == true)
        return Array(lines.dropFirst())
    }

    @Test(
        "SQLite → PostgreSQL → SQLite: identical dumps, pending deliveries included; a gateway on the PostgreSQL store delivers them",
        .enabled(if: ScratchPostgresDatabase.serverURL != nil, "needs PUSHGATE_TEST_POSTGRES_URL (CI sets it)"))
    func moveThroughPostgres() async throws {
        let first = path("first.sqlite")
        // A gateway whose APNs is down: the trigger is accepted, its deliveries stay pending.
        let downEmulator = try await RunningEmulator(.apns, directory: directory.appendingPathComponent("down"))
        _ = await downEmulator.stop()
        let gateway = try await RunningGateway(database: first, environment: downEmulator.settings)
        let client = ["CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL]
        for n in 0..<3 {
            let result = try await pushgate(
                [
                    "subscribe", "--cwd", Self.cwd, "--installation-id", "phone-\(n)", "--apns-token", Self.token(n),
                    "--name", "Mover",
                ], environment: client)
            try #require(result.status == 0, "\(result.stdout)\(result.stderr)")
        }
        let trigger = try await pushgate(["trigger", "--cwd", Self.cwd, "--no-wait"], environment: client)
        try #require(trigger.status == 0, "\(trigger.stdout)\(trigger.stderr)")
        try await Task.sleep(for: .milliseconds(500))
        #expect(await gateway.stop() == 0)

        let original = try await canonicalDump(first)
        #expect(original.filter { $0.hasPrefix(#"{"delivery":"#) }.count == 3, "\(original)")
        #expect(original.filter { $0.hasPrefix(#"{"path":"#) }.count == 5, "server, agent, three devices")

        let scratch = try await ScratchPostgresDatabase.create()
        let exported = path("first.jsonl")
        let export = try await pushgate(["export", "--database", first, "--to", exported])
        #expect(export.status == 0 && export.stderr.contains("export: "), "\(export.stderr)")
        let toPostgres = try await pushgate(["import", "--database", scratch.url, exported])
        #expect(toPostgres.status == 0, "\(toPostgres.stdout)\(toPostgres.stderr)")
        #expect(
            toPostgres.stdout.hasPrefix(
                "import: \(original.count) records read, \(original.count) written, 0 unchanged"))
        #expect(try await canonicalDump(scratch.url) == original)

        // The same dump again changes nothing; PostgreSQL is backed up with pg_dump.
        let again = try await pushgate(["import", "--database", scratch.url, exported])
        #expect(again.status == 0 && again.stdout.contains("0 written, \(original.count) unchanged, 0 refused"))
        let backup = try await pushgate(["backup", "--database", scratch.url, "--to", path("pg.sqlite")])
        #expect(backup.status == 2 && backup.stderr.contains("pg_dump"))

        // And back, through a pipe this time.
        let back = path("back.sqlite")
        let pipe = try await BuiltExecutable.run(
            [
                "-c",
                "\"$0\" export --database \"$1\" | \"$0\" import --database \"$2\"",
                BuiltExecutable.url.path, scratch.url, back,
            ], program: URL(fileURLWithPath: "/bin/sh"))
        #expect(pipe.status == 0, "\(pipe.stdout)\(pipe.stderr)")
        #expect(try await canonicalDump(back) == original)

        // A gateway on the PostgreSQL store sends what the SQLite one could not.
        let emulator = try await RunningEmulator(.apns, directory: directory.appendingPathComponent("up"))
        defer { emulator.terminate() }
        let moved = try await RunningGateway(database: scratch.url, environment: emulator.settings)
        try await waitUntil("the moved deliveries to be sent", within: .seconds(60), every: .milliseconds(100)) {
            try await emulator.inbox().accepted.count >= 3
        }
        #expect(try await emulator.inbox().accepted == Set((0..<3).map(Self.token)))
        #expect(await moved.stop() == 0)
        await scratch.drop()
    }

    @Test("backups of a store under write load each open and pass PRAGMA integrity_check, with what was committed")
    func backupUnderLoad() async throws {
        let store = path("live.sqlite")
        let emulator = try await RunningEmulator(.apns, directory: directory)
        defer { emulator.terminate() }
        // No rate limits: four writers as fast as they go, on one secret and one address.
        let unlimited = ["PUSHGATE_RATE_PER_SECRET": "0", "PUSHGATE_RATE_PER_ADDRESS": "0"]
        let gateway = try await RunningGateway(
            database: store, environment: emulator.settings.merging(unlimited) { $1 })
        defer { gateway.terminate() }
        try await Self.register(gateway, cwd: "/srv/triggered", installationID: "phone", token: Self.token(0))
        let acknowledged = Acknowledged()
        let writers = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        var n = 0
                        while !Task.isCancelled {
                            try await Self.register(
                                gateway, cwd: Self.cwd, installationID: "w\(writer)-\(n)",
                                token: Self.token(writer * 100_000 + n))
                            acknowledged.count.add(1, ordering: .relaxed)
                            n += 1
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        defer { writers.cancel() }
        let checker = """
            import sqlite3, sys
            db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
            print(db.execute("PRAGMA integrity_check").fetchone()[0])
            print(db.execute("SELECT COUNT(*) FROM documents WHERE collection_id = 'devices'").fetchone()[0])
            print(db.execute("SELECT COUNT(*) FROM outbox_notifications").fetchone()[0])
            """
        for round in 0..<3 {
            // Each backup begins while the writers are writing: wait for ten more answers first
            // (a count, not a time, so a slow machine only waits longer).
            let writtenBefore = acknowledged.count.load(ordering: .relaxed)
            let deadline = Date().addingTimeInterval(60)
            while acknowledged.count.load(ordering: .relaxed) < writtenBefore + 10 {
                try #require(Date() < deadline, "the writers stopped writing")
                try await Task.sleep(for: .milliseconds(10))
            }
            let committedBefore = acknowledged.count.load(ordering: .relaxed)
            let target = path("backup-\(round).sqlite")
            let backup = try await pushgate(["backup", "--database", store, "--to", target])
            try #require(backup.status == 0, "\(backup.stdout)\(backup.stderr)")
            #expect(backup.stdout.hasPrefix("backup: \(target), ") && backup.stdout.contains("integrity ok"))
            let check = try await BuiltExecutable.run(
                ["python3", "-c", checker, target], program: URL(fileURLWithPath: "/usr/bin/env"))
            let lines = check.stdout.split(separator: "\n")
            #expect(lines.first == "ok", "\(check.stdout)\(check.stderr)")
            let devices = lines.count > 1 ? Int(lines[1]) ?? -1 : -1
            #expect(devices >= committedBefore, "every registration answered before the backup began is in it")
            // A trigger between backups: the outbox is in the next one.
            let trigger = try await pushgate(
                ["trigger", "--cwd", "/srv/triggered", "--no-wait"],
                environment: ["CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL])
            #expect(trigger.status == 0, "\(trigger.stdout)\(trigger.stderr)")
            if round > 0 { #expect(lines.count > 2 && Int(lines[2])! >= round, "\(check.stdout)") }
        }
        writers.cancel()
        // Owner-only, even from a store others may read.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store)
        #expect(try await pushgate(["backup", "--database", store, "--to", path("private.sqlite")]).status == 0)
        let mode = try FileManager.default.attributesOfItem(atPath: path("private.sqlite"))[.posixPermissions]
        #expect(mode as? Int == 0o600, "a backup holds every token: its owner's alone")
        // An earlier backup is replaced; any other file is refused and left as it was.
        #expect(try await pushgate(["backup", "--database", store, "--to", path("private.sqlite")]).status == 0)
        let notes = path("notes.txt")
        try "keep me\n".write(toFile: notes, atomically: true, encoding: .utf8)
        let overText = try await pushgate(["backup", "--database", store, "--to", notes])
        #expect(overText.status != 0 && overText.stderr.contains("exists and is not a Pushgate backup"))
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "keep me\n")
        // A directory: a dated file in it; the store itself: refused.
        let dated = try await pushgate(["backup", "--database", store, "--to", directory.path])
        #expect(dated.status == 0 && dated.stdout.contains(directory.appendingPathComponent("pushgate-").path))
        let itself = try await pushgate(["backup", "--database", store, "--to", store])
        #expect(itself.status != 0 && itself.stderr.contains("names the store itself"))
        // The backup is a store a gateway starts on.
        let restored = try await RunningGateway(database: path("backup-2.sqlite"), environment: emulator.settings)
        #expect(await restored.stop() == 0)
    }

    static func register(_ gateway: RunningGateway, cwd: String, installationID: String, token: String) async throws {
        var request = HTTPClientRequest(url: gateway.baseURL + "/registerSubscription")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(secret)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(
            try JSONValue.object([
                "cwd": .string(cwd), "installation_id": .string(installationID), "apns_token": .string(token),
            ]).encodedData())
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 16)
        try #require(response.status == .ok)
    }

    @Test("a Firestore export of seed 003's gateway imports into the layout, and a trigger reaches its FCM devices")
    func fromFirestore() async throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("fixtures/firestore-export.json").path
        let secret = "firestore-move-secret-0123456789"
        let store = path("from-firestore.sqlite")
        let imported = try await pushgate(["import", "--database", store, "--format", "firestore-json", fixture])
        #expect(imported.status == 1, "a document was refused")
        #expect(
            imported.stdout.hasPrefix("import: 8 records read, 5 written, 0 unchanged, 3 refused"), "\(imported.stdout)"
        )
        let reports = imported.stderr.split(separator: "\n")
        #expect(reports.contains("collection 'users' is not Pushgate's: skipped"))
        #expect(reports.contains("field 'serverDisplayName' has no place in the layout: left out of 1 documents"))
        #expect(
            reports.contains {
                $0.hasSuffix(
                    "/devices/inst-bad: a device's 'fcmToken' must be 1 to 4096 characters without white space")
            })
        #expect(
            reports.contains {
                $0.contains("/agents/5f788baf") && $0.hasSuffix("the agent key is not the SHA-256 of its cwd")
            })
        #expect(reports.contains { $0.contains("/devices/inst-orphan: it is under servers/") })

        let dump = try await canonicalDump(store)
        #expect(dump.count == 5)
        #expect(dump.contains { $0.contains("/devices/inst-3") && $0.contains(#""platform":"ios""#) })
        #expect(dump.contains { $0.contains(#""lastSeenAt":"2025-11-23T12:13:20.123Z""#) })
        #expect(!dump.contains { $0.contains("orphan") })

        // Imported again: nothing changes (the namespace is no longer empty: compared, equal).
        let again = try await pushgate(["import", "--database", store, "--format", "firestore-json", fixture])
        #expect(again.stdout.hasPrefix("import: 8 records read, 0 written, 5 unchanged, 3 refused"), "\(again.stdout)")

        let fcm = try await RunningEmulator(.fcm, directory: directory)
        defer { fcm.terminate() }
        // The fixture's registrations date from 2025: the start-up sweep of devices not
        // registered for 90 days would take them (as it would have in Firestore).
        let gateway = try await RunningGateway(
            database: store, environment: fcm.settings.merging(["PUSHGATE_STALE_DEVICE_DAYS": "0"]) { $1 })
        defer { gateway.terminate() }
        let trigger = try await pushgate(
            ["trigger", "--cwd", "/srv/firestore-agent"],
            environment: ["CODEAGENTS_PUSH_SECRET": secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": gateway.baseURL])
        #expect(trigger.status == 0, "\(trigger.stdout)\(trigger.stderr)")
        #expect(
            try await fcm.inbox().accepted == ["fcm-moved-token-1", "fcm-moved-token-2", "fcm-moved-token-3"],
            "\(trigger.stdout)")
        let entries = try await fcm.entries()
        #expect(
            entries.allSatisfy {
                $0["message"]?.objectValue?["notification"]?.objectValue?["title"] == "Firestore agent"
            }, "\(entries)")
    }

    @Test(
        "the store commands find the database as serve does: --database, then PUSHGATE_DATABASE, then --config's file")
    func databaseAsServeFindsIt() async throws {
        let store = path("configured.sqlite")
        let server = SHA256Hex.digest(of: Self.secret)
        try [
            #"{"pushgate_dump":1,"exported_at":"2026-11-24T10:00:00.000Z"}"#,
            #"{"path":"servers/\#(server)","fields":{"createdAt":"2026-11-24T10:00:00.000Z"}}"#,
        ].joined(separator: "\n").write(toFile: path("one.jsonl"), atomically: true, encoding: .utf8)
        try "database: \(store)\n".write(toFile: path("pushgate.yaml"), atomically: true, encoding: .utf8)
        let imported = try await pushgate(["import", "--config", path("pushgate.yaml"), path("one.jsonl")])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try await canonicalDump(store).count == 1, "the file's database: took the import")

        let viaFile = try await pushgate(["export", "--config", path("pushgate.yaml")])
        #expect(viaFile.status == 0 && viaFile.stdout.contains(server), "\(viaFile.stderr)")
        let viaVariable = try await pushgate(
            ["export"], environment: ["PUSHGATE_CONFIG": path("pushgate.yaml")])
        #expect(viaVariable.status == 0 && viaVariable.stdout.contains(server), "\(viaVariable.stderr)")
        // The environment wins over the file, the flag over both.
        let missing = path("missing.sqlite")
        let overridden = try await pushgate(
            ["export", "--config", path("pushgate.yaml")], environment: ["PUSHGATE_DATABASE": missing])
        #expect(
            overridden.status != 0 && overridden.stderr.contains("no database at \(missing)"), "\(overridden.stderr)")
        let flagged = try await pushgate(
            ["outbox", "--config", path("pushgate.yaml"), "--database", store],
            environment: ["PUSHGATE_DATABASE": missing])
        #expect(flagged.status == 0, "\(flagged.stderr)")
        let unreadable = try await pushgate(["backup", "--config", path("none.yaml"), "--to", path("b.sqlite")])
        #expect(unreadable.status != 0 && unreadable.stderr.contains("none.yaml"), "\(unreadable.stderr)")
    }

    @Test(
        "times that once trapped an import (a header's before year 1, Firestore seconds beyond Int64) are refused by line"
    )
    func importTimesOutOfRange() async throws {
        let store = path("times.sqlite")
        try #"{"pushgate_dump":1,"exported_at":"0000-01-01T00:00:00+00:01"}"#.write(
            toFile: path("early.jsonl"), atomically: true, encoding: .utf8)
        let early = try await pushgate(["import", "--database", store, path("early.jsonl")])
        #expect(early.status == 1, "refused, not trapped: \(early.stderr)")
        #expect(early.stderr.contains("line 1:") && early.stderr.contains("exported_at"), "\(early.stderr)")
        #expect(early.stdout.hasPrefix("import: 0 records read"), "\(early.stdout)")
        let server = SHA256Hex.digest(of: Self.secret)
        for seconds in ["1e30", "-9223372036854775809", "9223372036854775807", "253402300800"] {
            let export =
                #"{"__collections__":{"servers":{"\#(server)":{"createdAt":{"__datatype__":"timestamp","value":{"_seconds":\#(seconds),"_nanoseconds":0}},"__collections__":{}}}}}"#
            try export.write(toFile: path("firestore.json"), atomically: true, encoding: .utf8)
            let imported = try await pushgate([
                "import", "--database", store, "--format", "firestore-json", path("firestore.json"),
            ])
            #expect(imported.status == 1, "_seconds \(seconds): refused, not trapped: \(imported.stderr)")
            #expect(imported.stderr.contains("createdAt"), "_seconds \(seconds): \(imported.stderr)")
            #expect(imported.stdout.hasPrefix("import: "), "_seconds \(seconds) ends with the summary")
        }
        #expect(try await canonicalDump(store).isEmpty, "nothing stored")
    }

    @Test("an import stopped by a signal ends with its summary and exit 1; the same dump run again completes it")
    func interruptedImport() async throws {
        let server = SHA256Hex.digest(of: Self.secret)
        let agent = SHA256Hex.digest(of: Self.cwd)
        let stamp = #""2026-11-24T10:00:00.000Z""#
        let devices = 6_000
        let lines =
            [
                #"{"pushgate_dump":1,"exported_at":\#(stamp)}"#,
                #"{"path":"servers/\#(server)","fields":{"createdAt":\#(stamp)}}"#,
                #"{"path":"servers/\#(server)/agents/\#(agent)","fields":{"createdAt":\#(stamp),"cwd":"\#(Self.cwd)","updatedAt":\#(stamp)}}"#,
            ]
            + (0..<devices).map {
                #"{"path":"servers/\#(server)/agents/\#(agent)/devices/phone-\#(String(format: "%05d", $0))","fields":{"apnsToken":"\#(Self.token($0))","createdAt":\#(stamp),"platform":"ios","updatedAt":\#(stamp)}}"#
            }
        let store = path("interrupted.sqlite")

        // The dump arrives through a pipe that stays open, as from a slow network
        // copy: the first batch (5,000 records) is stored, the rest waits for more.
        let process = Process()
        process.executableURL = BuiltExecutable.url
        process.arguments = ["import", "--database", store, "-"]
        let input = Pipe()
        let output = Pipe()
        let outputText = LogBuffer()
        output.fileHandleForReading.readabilityHandler = {
            outputText.append(String(decoding: $0.availableData, as: UTF8.self))
        }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let text = lines.joined(separator: "\n") + "\n"
        let writer = input.fileHandleForWriting
        try await BlockingWork.run { try writer.write(contentsOf: Data(text.utf8)) }
        try await waitUntil("the first batch stored", within: .seconds(120), every: .milliseconds(250)) {
            (try? await canonicalDump(store).count) ?? 0 >= 5_000
        }
        kill(process.processIdentifier, SIGTERM)
        try await waitUntil("the import to stop", within: .seconds(30)) { !process.isRunning }
        #expect(process.terminationStatus == 1)
        let summary = try #require(
            outputText.text.split(separator: "\n").first { $0.hasPrefix("import: ") && $0.contains(" read, ") },
            "\(outputText.text)")
        #expect(summary.contains("written, 0 unchanged, 0 refused; stopped (interrupted by SIGTERM)"), "\(summary)")
        try writer.close()

        // Run again on the whole dump, without --merge: what the store lacks is written.
        let dump = path("interrupted.jsonl")
        try text.write(toFile: dump, atomically: true, encoding: .utf8)
        let again = try await pushgate(["import", "--database", store, dump])
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        #expect(again.stdout.contains("0 refused"), "\(again.stdout)")
        #expect(try await canonicalDump(store) == lines.dropFirst().map { Substring($0) })
    }

    @Test("bad lines are reported by number and not imported; the rest is, and nothing else changes")
    func badLines() async throws {
        let server = SHA256Hex.digest(of: Self.secret)
        let agent = SHA256Hex.digest(of: Self.cwd)
        let stamp = #""2026-11-24T10:00:00.000Z""#
        func device(_ id: String, token: String) -> String {
            #"{"path":"servers/\#(server)/agents/\#(agent)/devices/\#(id)","fields":{"apnsToken":"\#(token)","createdAt":\#(stamp),"platform":"ios","updatedAt":\#(stamp)}}"#
        }
        let lines = [
            #"{"pushgate_dump":1,"exported_at":\#(stamp)}"#,
            #"{"path":"servers/\#(server)","fields":{"createdAt":\#(stamp)}}"#,
            #"{"path":"servers/\#(server)/agents/\#(agent)","fields":{"createdAt":\#(stamp),"cwd":"\#(Self.cwd)","updatedAt":\#(stamp)}}"#,
            device("phone-1", token: Self.token(1)),
            "{\"path\": truncated",
            device("phone-2", token: "not-hex"),
            device("phone-3", token: Self.token(3)),
            String(
                decoding: try DumpRecord.delivery(
                    DumpedDelivery(
                        notificationID: "nowhere", installationID: "phone-1", token: .apns(Self.token(1)), pushID: "p",
                        route: nil, attempts: 0, enqueuedAt: 0, nextAttemptAt: 0, lastReason: nil)
                ).line(), as: UTF8.self),
        ]
        let dump = path("bad.jsonl")
        try lines.joined(separator: "\n").write(toFile: dump, atomically: true, encoding: .utf8)
        let store = path("bad-lines.sqlite")

        // A run slower than five seconds (a loaded machine) also writes progress lines.
        let isProgress = { (line: Substring) in line.hasPrefix("import: ") && line.contains(" records, ") }
        let strict = try await pushgate(["import", "--database", store, "--strict", dump])
        #expect(strict.status == 1)
        #expect(strict.stderr.split(separator: "\n").filter { !isProgress($0) } == ["line 5: not a JSON value"])
        #expect(try await canonicalDump(store) == lines[1...3].map { Substring($0) }, "what came before line 5 only")

        let result = try await pushgate(["import", "--database", store, "--merge", dump])
        #expect(result.status == 1)
        #expect(
            result.stdout.hasPrefix("import: 7 records read, 1 written, 3 unchanged, 3 refused"), "\(result.stdout)")
        #expect(
            result.stderr.split(separator: "\n").filter { !isProgress($0) } == [
                "line 5: not a JSON value",
                "line 6: a device's 'apnsToken' must be 64 to 200 lower-case hex digits",
                "line 8: its notification 'nowhere' is not in the dump before it",
            ])
        let stored = try await canonicalDump(store)
        #expect(stored == [lines[1], lines[2], lines[3], lines[6]].map { Substring($0) })

        // Not a dump at all: refused whole, the store as it was.
        let firestore = try await pushgate(["import", "--database", store, path("bad.jsonl") + ".missing"])
        #expect(firestore.status != 0 && firestore.stderr.contains("cannot open"))
        try "{\"servers\":{}}\n".write(toFile: path("not-a-dump.json"), atomically: true, encoding: .utf8)
        let notADump = try await pushgate(["import", "--database", store, path("not-a-dump.json")])
        #expect(notADump.status != 0 && notADump.stderr.contains("line 1: not a Pushgate dump"))
        #expect(notADump.stdout.hasPrefix("import: 0 records read"), "a stop ends with the summary too")
        try #"{"__collections__":{"servers":{}},"__collections__":{}}"#.write(
            toFile: path("twice.json"), atomically: true, encoding: .utf8)
        let twice = try await pushgate([
            "import", "--database", store, "--format", "firestore-json", path("twice.json"),
        ])
        #expect(twice.status == 1 && twice.stderr.contains("the key '__collections__' appears twice in one object"))
        #expect(try await canonicalDump(store) == stored)
    }
}

/// Registrations answered so far, counted by the writers of a load.
private final class Acknowledged: Sendable {
    let count = Atomic<Int>(0)
}
