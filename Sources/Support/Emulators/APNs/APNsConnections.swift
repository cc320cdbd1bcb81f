import NIOConcurrencyHelpers
import NIOCore

/// The APNs emulator's open HTTP/2 connections, so that it can send them all GOAWAY
/// (``APNsEmulator/sendGoAway(reason:)``), as APNs ends connections for reasons of
/// its own.
final class APNsConnections: Sendable {
    private let channels = NIOLockedValueBox<[ObjectIdentifier: any Channel]>([:])

    var count: Int { channels.withLockedValue { $0.count } }

    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        channels.withLockedValue { $0[id] = channel }
        channel.closeFuture.whenComplete { _ in
            _ = self.channels.withLockedValue { $0.removeValue(forKey: id) }
        }
    }

    /// Sends each open connection GOAWAY with `reason`.
    func sendGoAway(reason: String?) {
        for channel in channels.withLockedValue({ Array($0.values) }) {
            channel.pipeline.fireUserInboundEventTriggered(GoAwayHandler.Announce(reason: reason))
        }
    }
}
