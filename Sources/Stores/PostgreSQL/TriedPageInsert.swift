import PostgresNIO
import PushgateCore
import PushgateOutboxRows

/// The statement that stores an expansion's tried page (``PostgresOutbox``'s
/// `storeTriedPage`), prepared once per connection: sent as text, its common-table
/// expressions and two inserts were parsed and planned again for every page, an
/// eighth of PostgreSQL's CPU in a 100,000-device fan-out.
///
/// One statement, one round trip and one commit: the cursor moves only while the
/// owner holds the expansion, and the rows go in only with it. The rows come as one
/// array per column, unnested: no JSON to build here or to parse per row there.
/// Enqueued, and due unless a retry says later, since the trigger was accepted, as
/// the deliveries of a notification written whole are; "" and 0 stand for NULL (the
/// default route, no reason, due since the trigger). Every delivery stored so far is
/// at or before the cursor it leaves: those after it are inserted plainly, and only
/// those at or before it check for one stored already (`ON CONFLICT`, a speculative
/// insertion, cost about a third of a page's insert). Answers the expansion's page
/// count, or no row when the owner no longer holds it.
struct TriedPageInsert: PostgresPreparedStatement {
    typealias Row = Int32

    static let sql = """
        WITH previous AS (
            SELECT coalesce(cursor, '') AS cursor FROM outbox_expansions
            WHERE notification_id = $1::text AND lease_owner = $2::text
        ), held AS (
            UPDATE outbox_expansions SET cursor = $3::text, lease_until = $4::bigint, pages = pages + 1
            WHERE notification_id = $1::text AND lease_owner = $2::text
            RETURNING pages
        ), page AS (
            SELECT n.id AS notification_id, r.installation_id COLLATE "C" AS installation_id, r.token_kind,
                r.token, r.push_id, NULLIF(r.route, '') AS route, r.state, r.attempts, n.created_at AS enqueued_at,
                coalesce(NULLIF(r.next_attempt_at, 0), n.created_at) AS next_attempt_at,
                NULLIF(r.last_reason, '') AS last_reason, r.removed, NULLIF(r.message_id, '') AS message_id,
                CASE r.state WHEN 'pending' THEN NULL ELSE $5::bigint END AS finished_at,
                r.installation_id COLLATE "C" > previous.cursor COLLATE "C" AS after_cursor
            FROM held, previous, outbox_notifications AS n,
                unnest($6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::integer[],
                    $13::bigint[], $14::text[], $15::boolean[], $16::text[])
                    AS r (installation_id, token_kind, token, push_id, route, state, attempts, next_attempt_at,
                        last_reason, removed, message_id)
            WHERE n.id = $1::text
        ), after_cursor AS (
            INSERT INTO outbox_deliveries (notification_id, installation_id, token_kind, token, push_id, route,
                state, attempts, enqueued_at, next_attempt_at, last_reason, removed, finished_at, message_id)
            SELECT notification_id, installation_id, token_kind, token, push_id, route, state, attempts,
                enqueued_at, next_attempt_at, last_reason, removed, finished_at, message_id
            FROM page WHERE after_cursor
        ), up_to_cursor AS (
            INSERT INTO outbox_deliveries (notification_id, installation_id, token_kind, token, push_id, route,
                state, attempts, enqueued_at, next_attempt_at, last_reason, removed, finished_at, message_id)
            SELECT notification_id, installation_id, token_kind, token, push_id, route, state, attempts,
                enqueued_at, next_attempt_at, last_reason, removed, finished_at, message_id
            FROM page WHERE NOT after_cursor
            ON CONFLICT DO NOTHING
        )
        SELECT pages FROM held
        """

    let notificationID: String
    let owner: String
    let cursor: String?
    /// The lease's end, in the database's milliseconds.
    let leaseUntil: Int64
    let finishedAt: Int64
    let deliveries: [TriedDelivery]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 16)
        bindings.append(notificationID)
        bindings.append(owner)
        bindings.append(cursor)
        bindings.append(leaseUntil)
        bindings.append(finishedAt)
        bindings.append(deliveries.map(\.delivery.installationID))
        bindings.append(deliveries.map(\.delivery.token.kind.rawValue))
        bindings.append(deliveries.map(\.delivery.token.value))
        bindings.append(deliveries.map(\.delivery.pushID))
        bindings.append(deliveries.map { $0.route.stored ?? "" })
        bindings.append(deliveries.map(\.state.rawValue))
        bindings.append(deliveries.map { Int32(clamping: $0.attempts) })
        bindings.append(deliveries.map { $0.retryAt ?? 0 })
        bindings.append(deliveries.map { $0.reason ?? "" })
        bindings.append(deliveries.map(\.removed))
        bindings.append(deliveries.map { $0.messageID ?? "" })
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Int32 { try row.decode(Int32.self) }
}
