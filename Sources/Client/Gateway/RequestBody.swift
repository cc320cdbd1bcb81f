/// A request body: text fields, whole numbers (a decision's `signed_at`), and the
/// objects a registration may carry (a Web Push subscription, payload keys) when there are.
struct RequestBody: Encodable, Sendable {
    var fields: [String: String]
    var integers: [String: Int64] = [:]
    var lists: [String: [String]] = [:]
    var webpush: WebPushSubscription?
    var payloadKeys: Registration.PayloadKeys?

    init(_ fields: [String: String], webpush: WebPushSubscription? = nil) {
        self.fields = fields
        self.webpush = webpush
    }

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (name, value) in fields { try container.encode(value, forKey: Key(stringValue: name)) }
        for (name, value) in integers { try container.encode(value, forKey: Key(stringValue: name)) }
        for (name, value) in lists { try container.encode(value, forKey: Key(stringValue: name)) }
        if let webpush { try container.encode(webpush, forKey: Key(stringValue: "webpush")) }
        if let payloadKeys { try container.encode(payloadKeys, forKey: Key(stringValue: "payload_keys")) }
    }
}
