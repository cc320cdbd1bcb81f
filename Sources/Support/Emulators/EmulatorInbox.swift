import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import PushgateCore
import PushgateWeb

/// One request an emulator received, as `GET /inbox` shows it.
public protocol EmulatorInboxEntry: Sendable {
    var json: JSONValue { get }
}

/// What an emulator received, newest last in storage and first in `entries`.
/// Bounded: past `limit` the oldest entries are dropped.
public final class EmulatorInbox<Entry: EmulatorInboxEntry>: Sendable {
    private let storage = NIOLockedValueBox<[Entry]>([])
    private let limit: Int
    /// Whether the emulator takes back an entry whose answer could not be written,
    /// and counts those (the APNs emulator): `GET /inbox/count` then says how many.
    private let countsUnanswered: Bool
    private let unansweredCount = NIOLockedValueBox(0)

    public init(limit: Int = 100_000, countsUnanswered: Bool = false) {
        self.limit = limit
        self.countsUnanswered = countsUnanswered
    }

    /// Requests answered on a connection that closed before the answer was written:
    /// not kept, since the client was never told of them.
    public var unanswered: Int { unansweredCount.withLockedValue { $0 } }

    /// Takes back `entry` (the newest equal to it), whose answer never reached the
    /// client, and counts it unanswered.
    func retract(_ entry: Entry) where Entry: Equatable {
        storage.withLockedValue { entries in
            if let index = entries.lastIndex(of: entry) { entries.remove(at: index) }
        }
        unansweredCount.withLockedValue { $0 += 1 }
    }

    @discardableResult
    func append(_ entry: Entry) -> Entry {
        storage.withLockedValue { entries in
            entries.append(entry)
            if entries.count > limit { entries.removeFirst(entries.count - limit) }
        }
        return entry
    }

    /// Everything kept, newest first.
    public var entries: [Entry] { storage.withLockedValue { $0.reversed() } }

    public var count: Int { storage.withLockedValue { $0.count } }

    public func removeAll() {
        storage.withLockedValue { $0.removeAll() }
        unansweredCount.withLockedValue { $0 = 0 }
    }

    /// `GET /inbox` (newest first), `GET /inbox/count`, `DELETE /inbox`, and at `/`
    /// the phone: a page that draws the inbox as a lock screen would show it.
    func addRoutes(to router: Router<BasicRequestContext>) {
        WebPages.add("phone.html", at: "/", to: router)
        router.get("inbox") { _, _ in
            let body = try JSONValue.array(self.entries.map(\.json)).encodedData()
            return Response(
                status: .ok,
                headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: body))
            )
        }
        router.get("inbox/count") { _, _ in
            self.countsUnanswered ? ["count": self.count, "unanswered": self.unanswered] : ["count": self.count]
        }
        router.delete("inbox") { _, _ in
            self.removeAll()
            return HTTPResponse.Status.noContent
        }
    }
}
