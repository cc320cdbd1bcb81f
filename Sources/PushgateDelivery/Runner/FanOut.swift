import PushgateCore

/// Sends one notification to many devices: in chunks of at most 500 devices of one
/// token kind (one push service), a bounded number of chunks at a time (the kinds
/// taking turns), the devices of a chunk in parallel (inside the provider). A
/// configuration error (a push service refusing the gateway itself) stops that
/// service's part of the fan-out: its chunks not started are not sent and report
/// that error; the other service's chunks go on. A cancelled fan-out (the gateway
/// shutting down) starts no further chunk: those devices answer `NotSent`, unrecorded,
/// still pending for the next try. Under a ``LeaseFence``, a chunk sends only the
/// devices whose lease the try still holds; the others are neither sent nor heard
/// of by `onChunk`, and answer `NotSent` too.
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

    /// One outcome per target, in the targets' order. `onChunk` hears each chunk's
    /// outcomes (with their positions among the targets) as soon as they are in,
    /// chunks not sent after a configuration error included, so that they can be
    /// recorded while other chunks are still out.
    func deliver(
        _ notification: PushNotification,
        to targets: [DeliveryTarget],
        via provider: any PushProvider,
        fence: LeaseFence? = nil,
        onChunk: @escaping @Sendable ([Int], [DeliveryOutcome]) async -> Void = { _, _ in }
    ) async -> [DeliveryOutcome] {
        let chunks = self.chunks(of: targets)
        var outcomes = [DeliveryOutcome?](repeating: nil, count: targets.count)
        var stopped: [PushServiceID: String] = [:]
        var skipped: [Int] = []
        await withTaskGroup(of: (index: Int, positions: [Int], outcomes: [DeliveryOutcome]).self) { group in
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
                        guard !positions.isEmpty else { return (index, [], []) }
                        let chunk = positions.map { targets[$0] }
                        let outcomes = Self.matched(await provider.send(notification, to: chunk), to: chunk)
                        await onChunk(positions, outcomes)
                        return (index, positions, outcomes)
                    }
                    return
                }
            }
            // Cancelled, `startNext` starts nothing: without the check this loop spun
            // for ever on a task thread (a gateway at full CPU whose other tasks,
            // a transaction's commit among them, never ran again).
            while running < maxConcurrentChunks, next < chunks.count, !Task.isCancelled { startNext() }
            for await (index, positions, chunkOutcomes) in group {
                running -= 1
                for (position, outcome) in zip(positions, chunkOutcomes) { outcomes[position] = outcome }
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
            let chunkOutcomes = chunk.positions.map { _ in DeliveryOutcome.configurationError(reason: reason) }
            for (position, outcome) in zip(chunk.positions, chunkOutcomes) { outcomes[position] = outcome }
            await onChunk(chunk.positions, chunkOutcomes)
        }
        return outcomes.map { $0 ?? .retryLater(reason: "NotSent", after: nil) }
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
