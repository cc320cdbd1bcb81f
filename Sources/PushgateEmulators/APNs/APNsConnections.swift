import Foundation
import NIOCore

/// The APNs emulator's open HTTP/2 connections, so that it can send them all GOAWAY
/// (``APNsEmulator/sendGoAway(reason:)``), as APNs ends connections for reasons of
/// its own.
final class APNsConnections: Sendable {
    /// A pthread mutex rather than `Synchronization.Mutex`: connections are added from
    /// every event loop thread at once, and on Linux the latter hands a contended lock
    /// over through a futex ThreadSanitizer cannot see (a fresh-clone run reported
    /// two adds as a race).
    private let lock = NSLock()
    nonisolated(unsafe) private var channels: [ObjectIdentifier: any Channel] = [:]

    var count: Int { lock.withLock { channels.count } }

    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        lock.withLock { channels[id] = channel }
        channel.closeFuture.whenComplete { _ in
            _ = self.lock.withLock { self.channels.removeValue(forKey: id) }
        }
    }

    /// Sends each open connection GOAWAY with `reason`.
    func sendGoAway(reason: String?) {
        for channel in lock.withLock({ Array(channels.values) }) {
            channel.pipeline.fireUserInboundEventTriggered(GoAwayHandler.Announce(reason: reason))
        }
    }
}
