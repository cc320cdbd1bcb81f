import PushgateCore

/// Thrown out of an import batch's transaction to roll it back (`allOrNothing` and a
/// refusal), with what each item would have done. The stores' transaction wrappers
/// pass it through as it is, so that the outcomes reach the importer.
public struct BatchRolledBack: Error, Sendable {
    public let outcomes: [DumpImportOutcome]

    public init(outcomes: [DumpImportOutcome]) {
        self.outcomes = outcomes
    }
}
