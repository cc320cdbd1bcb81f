import PushgateCore

/// Sends one notification to many devices: in chunks of at most 500, a bounded
/// number of chunks at a time, the devices of a chunk in parallel (inside the
/// provider). A configuration error (the push service refusing the gateway itself)
/// stops the fan-out: chunks not started are not sent and report that error.
public struct FanOut: Sendable {
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
    /// outcomes as soon as they are in (chunks not sent after a configuration error
    /// included), so that they can be recorded while other chunks are still out.
    public func deliver(
        _ notification: PushNotification,
        to targets: [DeliveryTarget],
        via provider: any PushProvider,
        onChunk: @escaping @Sendable (Range<Int>, [DeliveryOutcome]) async -> Void = { _, _ in }
    ) async -> [DeliveryOutcome] {
        let ranges = stride(from: 0, to: targets.count, by: chunkSize).map { $0..<min($0 + chunkSize, targets.count) }
        let chunks = ranges.map { Array(targets[$0]) }
        var outcomes = [[DeliveryOutcome]](repeating: [], count: chunks.count)
        var configurationError: String?
        await withTaskGroup(of: (Int, [DeliveryOutcome]).self) { group in
            var next = 0
            func startNext() {
                let index = next
                next += 1
                group.addTask {
                    let chunk = chunks[index]
                    let outcomes = Self.matched(await provider.send(notification, to: chunk), to: chunk)
                    await onChunk(ranges[index], outcomes)
                    return (index, outcomes)
                }
            }
            while next < min(maxConcurrentChunks, chunks.count) { startNext() }
            for await (index, chunkOutcomes) in group {
                outcomes[index] = chunkOutcomes
                configurationError =
                    configurationError ?? chunkOutcomes.lazy.compactMap(\.configurationErrorReason).first
                if configurationError == nil, next < chunks.count { startNext() }
            }
        }
        if let configurationError {
            for index in outcomes.indices where outcomes[index].isEmpty {
                outcomes[index] = chunks[index].map { _ in .configurationError(reason: configurationError) }
                await onChunk(ranges[index], outcomes[index])
            }
        }
        return outcomes.flatMap { $0 }
    }

    /// A provider must answer once per target; should one answer short, the
    /// missing devices count as failed rather than be silently dropped.
    private static func matched(_ outcomes: [DeliveryOutcome], to chunk: [DeliveryTarget]) -> [DeliveryOutcome] {
        guard outcomes.count != chunk.count else { return outcomes }
        return chunk.indices.map { $0 < outcomes.count ? outcomes[$0] : .failed(reason: "ProviderAnsweredShort") }
    }
}
