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

    public init(limit: Int = 100_000) {
        self.limit = limit
    }

    func append(_ entry: Entry) {
        storage.withLockedValue { entries in
            entries.append(entry)
            if entries.count > limit { entries.removeFirst(entries.count - limit) }
        }
    }

    /// Everything kept, newest first.
    public var entries: [Entry] { storage.withLockedValue { $0.reversed() } }

    public var count: Int { storage.withLockedValue { $0.count } }

    public func removeAll() {
        storage.withLockedValue { $0.removeAll() }
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
            ["count": self.count]
        }
        router.delete("inbox") { _, _ in
            self.removeAll()
            return HTTPResponse.Status.noContent
        }
    }
}
