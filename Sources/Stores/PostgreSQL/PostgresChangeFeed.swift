import Logging
import PostgresNIO
import PushgateCore

/// Word between the gateway processes on one PostgreSQL database that a document
/// changed: `pg_notify` on one channel, the path as the payload, heard by each
/// process's `LISTEN` on a connection of the pool it holds while it listens.
/// PostgreSQL delivers a notification to every session listening, the sender's
/// too, once the transaction that sent it commits (here: at once, outside one).
public struct PostgresChangeFeed: DocumentChangeFeed {
    /// The channel every gateway process of the database announces and listens on.
    static let channel = "pushgate_documents"
    /// How long a listener waits before it listens again after its connection failed.
    static let retryDelay = Duration.seconds(1)

    let database: PostgresDatabasePool

    public init(database: PostgresDatabasePool) {
        self.database = database
    }

    public func announce(_ path: DocumentPath) async {
        do {
            _ = try await database.query("SELECT pg_notify(\(Self.channel), \(path.rawValue))")
        } catch {
            // The listeners read what they wait for now and then: a word lost is late, not lost.
            database.logger.warning(
                "could not announce a change", metadata: ["path": "\(path)", "error": "\(error)"])
        }
    }

    public func listen(_ heard: @escaping @Sendable (DocumentPath?) async -> Void) async {
        let logger = database.logger
        while !Task.isCancelled {
            do {
                try await database.withConnection(within: nil) { connection in
                    try await connection.listen(on: Self.channel) { notifications in
                        await heard(nil)
                        for try await notification in notifications {
                            // Only gateways announce here; anything else on the channel is no path.
                            guard let path = try? DocumentPath(rawValue: notification.payload) else { continue }
                            await heard(path)
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("listening for changes failed; listening again", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: Self.retryDelay)
        }
    }
}
