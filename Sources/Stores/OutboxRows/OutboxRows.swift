import Foundation
import PushgateCore

/// How the SQL outboxes (SQLite, PostgreSQL) write values in rows: times as
/// milliseconds since 1970 (UTC), a token as its kind and value, a notification's
/// deliveries as one JSON array of `[installation id, token kind, token, push id, route]`
/// that the database unpacks itself — one statement for a whole fan-out.
public enum OutboxRows {
    public static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    public static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// A stored delivery's token. Its kind may name a service this build does not
    /// have (the routing fails it, naming the kind); text that names no service at
    /// all is corruption.
    public static func token(kind: String, value: String) throws(DocumentStoreError) -> DeviceToken {
        DeviceToken(kind: try tokenKind(kind), value: value)
    }

    /// A stored delivery's token kind.
    public static func tokenKind(_ kind: String) throws(DocumentStoreError) -> PushServiceID {
        guard let kind = PushServiceID(rawValue: kind) else {
            throw .corruptDocument("a delivery's token kind '\(kind.prefix(40))'")
        }
        return kind
    }

    /// A notification's content as stored: JSON.
    public static func json(_ content: PushNotification) throws -> String {
        String(decoding: try JSONEncoder().encode(content), as: UTF8.self)
    }

    /// A stored notification's content.
    public static func content(_ json: String) throws -> PushNotification {
        try JSONDecoder().decode(PushNotification.self, from: Data(json.utf8))
    }

    /// An expansion's selection as stored: `{"installation_id": …, "tokens": […]}`.
    public static func json(_ selection: DeviceSelection) throws -> String {
        String(
            decoding: try JSONEncoder().encode(
                StoredSelection(
                    installationID: selection.excludedInstallationID, tokens: selection.excludedTokens.sorted())),
            as: UTF8.self)
    }

    /// A stored expansion's selection.
    public static func selection(_ json: String) throws -> DeviceSelection {
        let stored = try JSONDecoder().decode(StoredSelection.self, from: Data(json.utf8))
        return DeviceSelection(excludedInstallationID: stored.installationID, excludedTokens: Set(stored.tokens))
    }

    private struct StoredSelection: Codable {
        let installationID: String?
        let tokens: [String]

        enum CodingKeys: String, CodingKey {
            case installationID = "installation_id"
            case tokens
        }
    }

    /// `[[installation id, token kind, token, push id, route], …]`, the route `""`
    /// when it is ``DeliveryRoute/unstated`` (stored as NULL).
    public static func deliveries(_ deliveries: [OutboxDelivery]) -> String {
        JSONText.array(
            deliveries.map {
                [$0.installationID, $0.token.kind.rawValue, $0.token.value, $0.pushID, $0.route.stored ?? ""]
            })
    }

    /// A stored delivery's route; text of another form is corruption.
    public static func route(_ stored: String?) throws(DocumentStoreError) -> DeliveryRoute {
        guard let route = DeliveryRoute(stored: stored) else {
            throw .corruptDocument("a delivery's route '\(stored ?? "")'")
        }
        return route
    }
}
