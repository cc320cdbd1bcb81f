import Foundation

/// Where accepted notifications wait until each device has been sent its push or
/// given up on: written before a trigger answers, so that a crash, a restart or an
/// APNs outage loses nothing.
///
/// Several workers (processes) may share one outbox: a delivery is sent by whoever
/// holds its lease; a lease that runs out (its holder died) makes it claimable
/// again, so every delivery is sent at least once and never by two holders at the
/// same time while their leases run.
///
/// The port is split by who calls it: ``OutboxWriting`` (the functions),
/// ``OutboxLeases`` (the delivery worker), ``OutboxExpansions`` (a big agent's
/// pages), ``OutboxQueries`` (answers, diagnostics, health). A store implements all
/// four, each in a file of its own.
public typealias Outbox = OutboxWriting & OutboxLeases & OutboxExpansions & OutboxQueries
