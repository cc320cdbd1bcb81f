import Foundation
import PushgateCore
import Synchronization

/// What the emulator received, newest last in storage and first in `entries`.
/// Bounded: past `limit` the oldest entries are dropped.
public final class APNsEmulatorInbox: Sendable {
    /// One request and the answer it got.
    public struct Entry: Sendable, Hashable {
        public let receivedAt: Date
        public let deviceToken: String
        /// Lower-case header names; pseudo-headers left out.
        public let headers: [String: String]
        /// The payload as JSON, or `nil` when it was not JSON.
        public let payload: JSONValue?
        public let status: Int
        public let reason: String?

        var json: JSONValue {
            var object: [String: JSONValue] = [
                "received_at": .string(RFC3339.format(receivedAt)),
                "device_token": .string(deviceToken),
                "headers": .object(headers.mapValues(JSONValue.string)),
                "payload": payload ?? .null,
                "status": .number(Double(status)),
            ]
            object["reason"] = reason.map(JSONValue.string)
            return .object(object)
        }
    }

    private let storage = Mutex<[Entry]>([])
    private let limit: Int

    public init(limit: Int = 100_000) {
        self.limit = limit
    }

    func append(_ entry: Entry) {
        storage.withLock { entries in
            entries.append(entry)
            if entries.count > limit { entries.removeFirst(entries.count - limit) }
        }
    }

    /// Everything kept, newest first.
    public var entries: [Entry] { storage.withLock { $0.reversed() } }

    public var count: Int { storage.withLock { $0.count } }

    public func removeAll() {
        storage.withLock { $0.removeAll() }
    }
}
