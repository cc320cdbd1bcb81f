/// A request body: text fields, and a Web Push subscription (an object) when there is one.
struct RequestBody: Encodable, Sendable {
    var fields: [String: String]
    var webpush: WebPushSubscription?

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
        if let webpush { try container.encode(webpush, forKey: Key(stringValue: "webpush")) }
    }
}
