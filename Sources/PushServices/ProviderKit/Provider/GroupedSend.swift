import PushgateCore

/// One send split by group (push service, app, APNs environment): each group's
/// targets go to its sender, the groups at once, and the outcomes come back in the
/// targets' order. A send of one group (a fan-out's chunks mostly are) is passed on
/// whole, with no copy.
public enum GroupedSend {
    public static func send<Group: Hashable & Sendable>(
        _ targets: [DeliveryTarget], groups: [Group],
        sender: @escaping @Sendable (Group, [DeliveryTarget]) async -> [DeliveryOutcome]
    ) async -> [DeliveryOutcome] {
        if let group = groups.first, groups.allSatisfy({ $0 == group }) { return await sender(group, targets) }
        var positions: [Group: [Int]] = [:]
        for (position, group) in groups.enumerated() { positions[group, default: []].append(position) }
        var outcomes = [DeliveryOutcome](repeating: .retryLater(reason: "NotSent", after: nil), count: targets.count)
        await withTaskGroup(of: ([Int], [DeliveryOutcome]).self) { tasks in
            for (group, indexes) in positions {
                tasks.addTask { (indexes, await sender(group, indexes.map { targets[$0] })) }
            }
            for await (indexes, sent) in tasks {
                for (index, outcome) in zip(indexes, sent) { outcomes[index] = outcome }
            }
        }
        return outcomes
    }
}
