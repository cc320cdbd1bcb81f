import PushgateCore

/// The checks FCM makes on a `messages:send` body before it looks at the token, as
/// a function from the body to the error FCM would answer, if any: the v1 `Message`
/// resource's names and types (``FCMMessageSchema``), one target, then FCM's own rules.
enum FCMMessageChecker {
    /// Targets a message names exactly one of.
    static let targets = ["token", "topic", "condition", "fid"]

    /// The message, whether it is a dry run, and its token; or FCM's error.
    static func check(_ body: [UInt8]) throws(FCMStatusError) -> (
        message: [String: JSONValue], validateOnly: Bool, token: String
    ) {
        guard case .object(let root)? = try? JSONValue.parse(body) else {
            throw .invalidArgument("Invalid JSON payload received.", errorCode: nil)
        }
        for name in root.keys.sorted() where !["message", "validate_only", "validateOnly"].contains(name) {
            throw .invalidArgument(
                "Invalid JSON payload received. Unknown name \"\(name)\": Cannot find field.", errorCode: nil)
        }
        guard case .object(let message)? = root["message"] else {
            throw .invalidArgument("Request contains an invalid argument.", field: "message", errorCode: nil)
        }
        try FCMMessageSchema.message.validate(.object(message), at: "message")
        var validateOnly = false
        if let flag = root["validate_only"] ?? root["validateOnly"] {
            guard case .bool(let value) = flag else {
                throw .invalidArgument(
                    "Invalid value at 'validate_only' (TYPE_BOOL)", field: "validate_only", errorCode: nil)
            }
            validateOnly = value
        }
        let named = targets.filter { message[$0] != nil }
        guard named.count == 1 else {
            throw .invalidArgument(
                "Exactly one of token, topic, condition or fid must be specified.", field: "message")
        }
        for target in named {
            guard case .string(let value)? = message[target], !value.isEmpty else {
                throw .invalidArgument("Invalid value at 'message.\(target)' (TYPE_STRING)", field: "message.\(target)")
            }
        }
        let data = try strings(message["data"], at: "message.data")
        if case .object(let apns)? = message["apns"] {
            let headers = try strings(apns["headers"], at: "message.apns.headers")
            if let collapseID = headers["apns-collapse-id"], collapseID.utf8.count > 64 {
                throw .invalidArgument("The apns-collapse-id header is over 64 bytes.", field: "message.apns.headers")
            }
            if let priority = headers["apns-priority"], !["5", "10"].contains(priority) {
                throw .invalidArgument("Invalid apns-priority.", field: "message.apns.headers")
            }
            // A message without a notification reaches Apple's devices as a background
            // push, which must go at priority 5.
            if message["notification"] == nil, headers["apns-priority"] == "10" || headers["apns-priority"] == nil,
                headers["apns-push-type"] == "background"
            {
                throw .invalidArgument(
                    "A background APNs push must use apns-priority 5.", field: "message.apns.headers")
            }
            let headerBytes = headers.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
            guard headerBytes <= 8 * 1024 else {
                throw .invalidArgument("The APNs headers are too big.", field: "message.apns.headers")
            }
        }
        guard data.reduce(0, { $0 + $1.key.utf8.count + $1.value.utf8.count }) <= 4096 else {
            throw .invalidArgument("Message is too big", field: "message.data")
        }
        guard apnsPayloadSize(message, data: data) <= 4096 else {
            throw .invalidArgument("Message is too big", field: "message.apns.payload")
        }
        let token = named[0] == "token" || named[0] == "fid" ? message[named[0]]?.stringValue ?? "" : ""
        return (message, validateOnly, token)
    }

    /// A string-to-string map, or the error FCM gives for a value of another type.
    private static func strings(_ value: JSONValue?, at field: String) throws(FCMStatusError) -> [String: String] {
        guard let value else { return [:] }
        guard case .object(let object) = value else {
            throw .invalidArgument(
                "Invalid value at '\(field)' (type.googleapis.com/google.protobuf.Struct)", field: field)
        }
        var strings: [String: String] = [:]
        for (index, (key, value)) in object.sorted(by: { $0.key < $1.key }).enumerated() {
            guard case .string(let text) = value else {
                throw .invalidArgument(
                    "Invalid value at '\(field)[\(index)].value' (TYPE_STRING), \(value)",
                    field: "\(field)[\(index)].value")
            }
            strings[key] = text
        }
        return strings
    }

    /// The size of what Apple's devices would get: `apns.payload` with `data` as
    /// custom keys beside `aps`, and `notification`'s title and body as the alert
    /// when the payload has none.
    private static func apnsPayloadSize(_ message: [String: JSONValue], data: [String: String]) -> Int {
        var payload = message["apns"]?.objectValue?["payload"]?.objectValue ?? [:]
        for (key, value) in data where payload[key] == nil { payload[key] = .string(value) }
        var aps = payload["aps"]?.objectValue ?? [:]
        if aps["alert"] == nil, let notification = message["notification"] { aps["alert"] = notification }
        payload["aps"] = .object(aps)
        return (try? JSONValue.object(payload).encodedData().count) ?? Int.max
    }
}
