import ArgumentParser
import Foundation
import Logging
import PushgateCore
import PushgateDumpFormat
import PushgateInstalledServices
import PushgateServer
import UnixSignals

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Read a dump or a Firestore export into the store.",
        discussion: """
            Every record is checked against the store's layout (store/LAYOUT.md); a bad one is reported with \
            its line number (or its path) and not imported. Batches of 5,000 records are one transaction each \
            (a gateway on the same SQLite file waits a fraction of a second for each). \
            Importing the same dump twice changes nothing the second time. A namespace that already has \
            documents is only compared with, not written, unless --merge. With --format firestore-json, FILE is \
            the JSON node-firestore-import-export writes from the Firestore of seed 003's gateway. \
            Every record meets the rules a request to the gateway meets (lengths, characters, times, key forms, \
            a key once per object). A record the store lacks is always written, so a dump run again after an \
            interrupted import completes it. Whatever stops an import, it ends with its summary line. \
            Exit status 1 when a record was refused or the import stopped.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case pushgate
        case firestoreJSON = "firestore-json"
    }

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The file to read; standard input when absent or -.")
    var file: String?

    @Option(help: "pushgate (JSON Lines from pushgate export) or firestore-json.")
    var format: Format = .pushgate

    @Option(help: "Only this namespace: a server key (64 hex digits); the rest is skipped.")
    var namespace: String?

    @Flag(help: "Write into namespaces that already have documents: the dump's version of a document wins.")
    var merge = false

    @Flag(help: "Stop at the first refused record (batches stored before it stay).")
    var strict = false

    func validate() throws {
        if let namespace, !DocumentLayout.isKey(namespace) {
            throw ValidationError("--namespace must be a server key: 64 lower-case hex digits")
        }
    }

    /// Whatever stops it — a refused record with `--strict`, a store that fails, an
    /// unreadable input, SIGINT or SIGTERM — the import ends with its summary line
    /// (what was stored stays: the same dump run again completes it) and exit 1.
    func run() async throws {
        let started = Date()
        let progress = ImportProgress()
        let work = Task { try await importAll(reporting: progress) }
        let interruption = Task {
            for await signal in await UnixSignalsSequence(trapping: .sigint, .sigterm) {
                progress.interrupted(by: signal)
                work.cancel()
                // The import stops between two records; one waiting on a pipe that
                // sends nothing more is not left waiting: the summary says what was stored.
                try await Task.sleep(for: .seconds(2))
                guard progress.claimSummary() else { return }
                Self.summarize(progress.summary(importOver: false), stop: progress.interruption, started: started)
                Foundation.exit(ExitCode.failure.rawValue)
            }
        }
        defer { interruption.cancel() }
        var stop: String?
        do {
            try await work.value
        } catch is DumpImporter.Stopped {
            stop = "--strict"  // the refusal was reported on its own line
        } catch {
            stop = progress.interruption ?? "\(error)"
            StandardError.write("Error: \(stop ?? "")\n")
        }
        // The signal's task printed it, and exits.
        guard progress.claimSummary() else { throw ExitCode.failure }
        let summary = progress.summary(importOver: true)
        Self.summarize(summary, stop: stop, started: started)
        if stop != nil || summary.refused > 0 { throw ExitCode.failure }
    }

    /// The last line, once, whoever ends the import.
    private static func summarize(_ summary: DumpImportSummary, stop: String?, started: Date) {
        let seconds = String(format: "%.1f", Date().timeIntervalSince(started))
        let stopped = stop.map { "; stopped (\($0))" } ?? ""
        print("import: \(summary)\(stopped) in \(seconds) s")
    }

    private func importAll(reporting progress: ImportProgress) async throws {
        let descriptor = try openInput()
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        var logger = Logger(label: "pushgate-import")
        logger.logLevel = .warning
        try await StoreBackend.using(try database.location(), logger: logger) { backend in
            let importer = DumpImporter(
                transfer: backend.transfer, namespace: namespace, merge: merge, strict: strict
            ) { location, reason in
                StandardError.write("\(location): \(reason)\n")
            }
            progress.follow(importer)
            switch format {
            case .pushgate: try await importLines(from: descriptor, into: importer, reporting: progress)
            case .firestoreJSON: try await importFirestore(from: descriptor, into: importer, reporting: progress)
            }
            progress.publish(try await importer.finish())
        }
    }

    private func openInput() throws -> Int32 {
        guard let file, file != "-" else { return STDIN_FILENO }
        let descriptor = open(file, O_RDONLY)
        guard descriptor >= 0 else { throw CommandFailure("cannot open \(file): \(String(cString: strerror(errno)))") }
        return descriptor
    }

    /// A Pushgate dump, line by line: the header first.
    private func importLines(from descriptor: Int32, into importer: DumpImporter, reporting meter: ImportProgress)
        async throws
    {
        var reader = LineReader(descriptor: descriptor)
        let progress = ProgressMeter(label: "import", total: Self.size(of: descriptor), unit: "input")
        defer { progress.finish() }
        var number = 0
        var sawHeader = false
        while let line = try reader.next() {
            try Task.checkCancellation()
            number += 1
            guard let line else {
                try await importer.add(.failure(DumpError("longer than 16 MiB")), at: "line \(number)")
                continue
            }
            guard !line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) else { continue }
            let record = Result { () throws(DumpError) in try DumpRecord(line: line, formats: .installed) }
            if !sawHeader {
                if case .failure(let refusal) = record, refusal.isHeader {
                    throw CommandFailure("line \(number): \(refusal)")
                }
                guard case .success(.header) = record else {
                    throw CommandFailure(
                        "line \(number): not a Pushgate dump (it must start with {\"pushgate_dump\": 1, …}); "
                            + "a Firestore export takes --format firestore-json")
                }
                sawHeader = true
                continue
            }
            if case .success(.header) = record {
                try await importer.add(.failure(DumpError("a second header")), at: "line \(number)")
                continue
            }
            try await importer.add(record, at: "line \(number)")
            meter.publish(importer.summary)
            progress.update(done: reader.bytesRead, records: importer.summary.read)
        }
        guard sawHeader else { throw CommandFailure("the input is empty: no dump header") }
    }

    /// A Firestore export, read whole (the tool that writes it holds it whole too).
    private func importFirestore(from descriptor: Int32, into importer: DumpImporter, reporting meter: ImportProgress)
        async throws
    {
        let data = try FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).readToEnd() ?? Data()
        let export: FirestoreExport
        do {
            let json = try JSONValue.parse(data)
            if let key = DuplicateKeyScan.firstDuplicate(in: data) {
                throw CommandFailure("not a Firestore export: the key '\(key.prefix(80))' appears twice in one object")
            }
            export = try FirestoreExport(json: json, formats: .installed)
        } catch let error as CommandFailure {
            throw error
        } catch let error as DumpError {
            throw CommandFailure("not a Firestore export: \(error)")
        } catch {
            throw CommandFailure("not a Firestore export: the file is not JSON")
        }
        for collection in export.otherCollections {
            StandardError.write("collection '\(collection)' is not Pushgate's: skipped\n")
        }
        for (name, count) in export.droppedFields.sorted(by: { $0.key < $1.key }) {
            StandardError.write("field '\(name)' has no place in the layout: left out of \(count) documents\n")
        }
        let progress = ProgressMeter(label: "import", total: Int64(export.documents.count), unit: "documents")
        defer { progress.finish() }
        for (index, (location, document)) in export.documents.enumerated() {
            try Task.checkCancellation()
            try await importer.add(document.map(DumpRecord.document), at: location)
            meter.publish(importer.summary)
            progress.update(done: Int64(index + 1), records: importer.summary.read)
        }
    }

    /// The size of a file, for the progress bar; `nil` for a pipe (which cannot seek).
    private static func size(of descriptor: Int32) -> Int64? {
        let end = lseek(descriptor, 0, SEEK_END)
        guard end >= 0, lseek(descriptor, 0, SEEK_SET) == 0 else { return nil }
        return Int64(end)
    }
}
