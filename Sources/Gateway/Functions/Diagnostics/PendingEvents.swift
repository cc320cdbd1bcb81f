import Foundation
import PushgateCore

/// The events of a namespace not resolved yet — approvals waiting for
/// `resolveEvent`, and events counted on the badge — of one agent or every agent,
/// oldest first, with the times of their reminders still to come.
enum PendingEvents {
    /// How many an answer lists at most.
    static let listed = 100

    static func read(serverKey: ServerKey, agentKey: AgentKey?, now: Date, store: any DocumentStore) async throws
        -> [JSONValue]
    {
        let now = RFC3339.format(now)
        // An event keeps `expiresAt` until it is resolved, and every RFC 3339 time sorts
        // before "9": the filter finds each record that has one, by its index.
        let records = try await store.documents(
            inGroup: NamespacePaths.events, under: NamespacePaths.server(serverKey),
            where: .stringBefore(FieldName.expiresAt, "9"), after: nil, limit: nil)
        return records.filter { record in agentKey.map { record.string(FieldName.agentKey) == $0.hex } ?? true }
            .sorted { ($0.string(FieldName.createdAt) ?? "") < ($1.string(FieldName.createdAt) ?? "") }
            .prefix(listed)
            .map { record in
                var entry: [String: JSONValue] = [:]
                for (name, field) in [
                    ("event_id", FieldName.eventID), ("agent_key", FieldName.agentKey), ("type", FieldName.type),
                    ("created_at", FieldName.createdAt), ("expires_at", FieldName.expiresAt),
                ] {
                    entry[name] = record.string(field).map(JSONValue.string)
                }
                // Records written before the console have no reminder times.
                if case .array(let times) = record.fields[FieldName.remindersDueAt] {
                    entry["next_reminders_at"] = .array(times.filter { ($0.stringValue ?? "") > now })
                }
                return .object(entry)
            }
    }
}
