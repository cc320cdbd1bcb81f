import AsyncAlgorithms
import PushgateCore
import PushgateProviderKit

/// Sends one notification to many devices: in chunks of at most 500 devices of one
/// token kind (one push service), a bounded number of chunks at a time (the kinds
/// taking turns), the devices of a chunk in parallel (inside the provider). Each
/// chunk's outcomes are handed over to whoever reads the fan-out's channel (the
/// runner, which records them), not handed to a callback. A configuration error (a
/// push service refusing the gateway itself) stops that service's part of the
/// fan-out: its chunks not started are not sent and report that error; the other
/// service's chunks go on. A cancelled fan-out (the gateway shutting down) starts no
/// further chunk (those devices are not heard of, still pending for the next try),
/// but a chunk already out is still handed over: it was sent, and must be recorded.
/// Under a ``LeaseFence``, a chunk sends only the devices whose lease the try still
/// holds; the others are neither sent nor heard of.
public struct FanOut: Sendable, Hashable {
    public let chunkSize: Int
    public let maxConcurrentChunks: Int

    public init(
        chunkSize: Int = PushProviderLimits.maxTargetsPerSend,
        maxConcurrentChunks: Int = 4
    ) {
        precondition((1...PushProviderLimits.maxTargetsPerSend).contains(chunkSize))
        precondition(maxConcurrentChunks >= 1)
        self.chunkSize = chunkSize
        self.maxConcurrentChunks = maxConcurrentChunks
    }

    /// The outcomes of one chunk, by the positions of its devices among the targets.
    public struct SentChunk: Sendable {
        public let positions: [Int]
        public let outcomes: [DeliveryOutcome]
    }

    /// Sends `notification` to `targets`, handing each chunk's outcomes over through
    /// `sent` as soon as they are in (chunks not sent after a configuration error
    /// included), then finishes `sent`. A chunk keeps its place until its outcomes
    /// are taken: no more chunks are out and unheard of than run at once.
    func deliver(
        _ notification: PushNotification,
        to targets: [DeliveryTarget],
        via provider: any PushProvider,
        fence: LeaseFence? = nil,
        handingOver sent: AsyncChannel<SentChunk>
    ) async {
        defer { sent.finish() }
        let chunks = self.chunks(of: targets)
        var stopped: [PushServiceID: String] = [:]
        var skipped: [Int] = []
        await withTaskGroup(of: (index: Int, outcomes: [DeliveryOutcome]).self) { group in
            var next = 0
            var running = 0
            func startNext() {
                while next < chunks.count, !Task.isCancelled {
                    let index = next
                    next += 1
                    if stopped[chunks[index].kind] != nil {
                        skipped.append(index)
                        continue
                    }
                    running += 1
                    group.addTask {
                        var positions = chunks[index].positions
                        if let fence {
                            let leases = await fence.leases(of: positions.map { targets[$0] })
                            positions = zip(positions, leases).filter { $0.1 == .held }.map(\.0)
                        }
                        guard !positions.isEmpty else { return (index, []) }
                        let chunk = positions.map { targets[$0] }
                        let outcomes = Self.matched(await provider.send(notification, to: chunk), to: chunk)
                        await Self.handOver(SentChunk(positions: positions, outcomes: outcomes), to: sent)
                        return (index, outcomes)
                    }
                    return
                }
            }
            // Cancelled, `startNext` starts nothing: without the check this loop spun
            // for ever on a task thread (a gateway at full CPU whose other tasks,
            // a transaction's commit among them, never ran again).
            while running < maxConcurrentChunks, next < chunks.count, !Task.isCancelled { startNext() }
            for await (index, chunkOutcomes) in group {
                running -= 1
                if stopped[chunks[index].kind] == nil,
                    let reason = chunkOutcomes.lazy.compactMap(\.configurationErrorReason).first
                {
                    stopped[chunks[index].kind] = reason
                }
                startNext()
            }
        }
        for index in skipped {
            let chunk = chunks[index]
            let reason = stopped[chunk.kind] ?? "NotSent"
            await Self.handOver(
                SentChunk(
                    positions: chunk.positions,
                    outcomes: chunk.positions.map { _ in DeliveryOutcome.configurationError(reason: reason) }),
                to: sent)
        }
    }

    /// Hands a chunk's outcomes over, waiting until they are taken, even when the
    /// fan-out is cancelled: a channel's `send` from a cancelled task gives up, and
    /// what a chunk sent would then go unrecorded (and be sent again by the next
    /// try). The send runs in a task of its own, which the cancellation does not reach.
    private static func handOver(_ chunk: SentChunk, to sent: AsyncChannel<SentChunk>) async {
        await Task { await sent.send(chunk) }.value
    }

    /// The targets of one token kind, at most `chunkSize` of them.
    private struct Chunk: Sendable {
        let kind: PushServiceID
        let positions: [Int]
    }

    /// Each kind's targets in chunks, in the targets' order; the kinds take turns so
    /// that neither service waits for the other's whole fan-out.
    private func chunks(of targets: [DeliveryTarget]) -> [Chunk] {
        var positionsByKind: [PushServiceID: [Int]] = [:]
        for (position, target) in targets.enumerated() {
            positionsByKind[target.token.kind, default: []].append(position)
        }
        let perKind = positionsByKind.sorted { $0.key < $1.key }.map { kind, positions in
            stride(from: 0, to: positions.count, by: chunkSize).map {
                Chunk(kind: kind, positions: Array(positions[$0..<min($0 + chunkSize, positions.count)]))
            }
        }
        var chunks: [Chunk] = []
        for round in 0..<(perKind.map(\.count).max() ?? 0) {
            for kindChunks in perKind where round < kindChunks.count { chunks.append(kindChunks[round]) }
        }
        return chunks
    }

    /// A provider must answer once per target; should one answer short, the
    /// missing devices count as failed rather than be silently dropped.
    static func matched(_ outcomes: [DeliveryOutcome], to chunk: [DeliveryTarget]) -> [DeliveryOutcome] {
        guard outcomes.count != chunk.count else { return outcomes }
        return chunk.indices.map { $0 < outcomes.count ? outcomes[$0] : .failed(reason: "ProviderAnsweredShort") }
    }
}
