import ArgumentParser
import Foundation
import Logging
import PushgateCore
import PushgateDumpFormat
import PushgateServer

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the store and its unsent pushes as JSON Lines.",
        discussion: """
            One record a line: a header ({"pushgate_dump": 1, "exported_at": …}), every document \
            ({"path": …, "fields": {…}}) in path order, then the outbox's notifications with work left, their \
            pending deliveries and unfinished expansions. Read from one snapshot while a gateway may be running; \
            memory stays small however big the store. `pushgate import` reads it into SQLite or PostgreSQL. \
            The dump holds device tokens: keep it as you keep the database.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Only this namespace: a server key (the SHA-256 of a push secret, 64 hex digits).")
    var namespace: String?

    @Option(name: .customLong("to"), help: "Write to this file (mode 0600) instead of standard output.")
    var output: String?

    func validate() throws {
        if let namespace, !DocumentLayout.isKey(namespace) {
            throw ValidationError("--namespace must be a server key: 64 lower-case hex digits")
        }
    }

    func run() async throws {
        let path = try database.existing()
        let destination = try output.map { try PartialFile(creating: $0) }
        let buffer = OutputBuffer(descriptor: destination?.descriptor ?? STDOUT_FILENO)
        var logger = Logger(label: "pushgate-export")
        logger.logLevel = .warning
        let started = Date()
        var counts = ExportCounts()
        do {
            try buffer.writeLine(try DumpRecord.header(exportedAt: started, namespace: namespace).line())
            try await StoreBackend.using(path, logger: logger) { backend in
                let total = try await backend.transfer.documentCount(inNamespace: namespace)
                let progress = ProgressMeter(label: "export", total: Int64(total), unit: "documents")
                try await backend.transfer.export(namespace: namespace) { record in
                    try buffer.writeLine(try record.line())
                    counts.add(record)
                    progress.update(done: Int64(counts.documents), records: counts.records)
                }
                progress.finish()
            }
            try buffer.flush()
            try destination?.commit()
        } catch {
            destination?.discard()
            throw error
        }
        let seconds = Date().timeIntervalSince(started)
        StandardError.write("export: \(counts) in \(String(format: "%.1f", seconds)) s\n")
    }
}

/// What an export wrote, for its summary line.
struct ExportCounts: CustomStringConvertible {
    var records = 0
    var documents = 0
    var notifications = 0
    var deliveries = 0
    var expansions = 0

    mutating func add(_ record: DumpRecord) {
        records += 1
        switch record {
        case .header: records -= 1
        case .document: documents += 1
        case .notification: notifications += 1
        case .delivery: deliveries += 1
        case .expansion: expansions += 1
        }
    }

    var description: String {
        "\(records) records: \(documents) documents, \(notifications) notifications, "
            + "\(deliveries) pending deliveries, \(expansions) expansions"
    }
}
