import PushgateCore
import PushgateDumpFormat

/// The statements an export reads with, the same for SQLite and PostgreSQL but for
/// how a parameter is written (`?1`, `$1::text`) and JSON columns are read (`::text`).
public enum TransferSQL {
    /// The paths of every document under `servers/` (or one namespace), as a
    /// half-open range in byte order: both stores order paths by their bytes.
    public static func pathRange(_ namespace: String?) -> (lower: String, upper: String) {
        guard let namespace else { return ("servers/", "servers0") }
        // "0" follows "/": the namespace's document and everything under it.
        return ("servers/\(namespace)", "servers/\(namespace)0")
    }

    /// The columns of a ``DumpedNotification``, in its order.
    public static func notificationColumns(json: String = "") -> String {
        """
        SELECT id, server_key, agent_key, content\(json), created_at, expires_at, idempotency_key, reminder_of,
            coalesce_key, held_until, coalesced_count, coalesced_into FROM outbox_notifications
        """
    }

    /// The columns of a ``DumpedDelivery``, with `state` seventh.
    public static let deliveryColumns = """
        SELECT notification_id, installation_id, token_kind, token, push_id, route, state, attempts, enqueued_at,
            next_attempt_at, last_reason FROM outbox_deliveries
        """

    /// The columns of a ``DumpedExpansion``.
    public static func expansionColumns(json: String = "") -> String {
        "SELECT notification_id, accepted_at, selection\(json), cursor FROM outbox_expansions"
    }

    /// The notifications with work left, oldest first: a pending delivery, an
    /// expansion, or an open coalescing window they were folded into (their
    /// idempotency keys must still be known). `parameter`: the namespace, NULL for all.
    public static func workingNotifications(namespace parameter: String, json: String = "") -> String {
        notificationColumns(json: json) + """
             AS n WHERE (\(parameter) IS NULL OR n.server_key = \(parameter)) AND (
                EXISTS (SELECT 1 FROM outbox_deliveries d WHERE d.notification_id = n.id AND d.state = 'pending')
                OR EXISTS (SELECT 1 FROM outbox_expansions e WHERE e.notification_id = n.id)
                OR EXISTS (SELECT 1 FROM outbox_deliveries d
                    WHERE d.notification_id = n.coalesced_into AND d.state = 'pending'))
            ORDER BY n.created_at, n.id
            """
    }

    /// The pending deliveries, by notification and installation.
    public static func pendingDeliveries(namespace parameter: String) -> String {
        deliveryColumns + """
             AS d WHERE d.state = 'pending' AND (\(parameter) IS NULL
                OR d.notification_id IN (SELECT id FROM outbox_notifications WHERE server_key = \(parameter)))
            ORDER BY d.notification_id, d.installation_id
            """
    }

    /// The unfinished expansions, by notification.
    public static func expansions(namespace parameter: String, json: String = "") -> String {
        expansionColumns(json: json) + """
             AS e WHERE (\(parameter) IS NULL
                OR e.notification_id IN (SELECT id FROM outbox_notifications WHERE server_key = \(parameter)))
            ORDER BY e.notification_id
            """
    }

    /// A JSON column of an outbox row (a notification's content, an expansion's selection), as read.
    public static func json(_ text: String) throws -> JSONValue {
        // Untyped `throws`: the typed form, inlined into PostgresTransfer's export
        // closure, crashed the Swift 6.3 optimizer (splitting the coroutine).
        do {
            return try JSONValue.parse(Array(text.utf8))
        } catch {
            throw DocumentStoreError.corruptDocument("an outbox row's JSON")
        }
    }
}
