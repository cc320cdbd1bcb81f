import PushgateCore

/// The FCM v1 `Message` resource as Google's JSON front end reads it: every field by
/// its proto name or its lowerCamelCase one, of its type, enums by their value names
/// (in any case: the Admin SDKs send `"high"` where the proto says `HIGH`). A name it
/// does not know, anywhere, is refused as Google refuses it, so a misspelt field fails
/// here as it would in production instead of being dropped.
indirect enum FCMMessageSchema: Sendable {
    case string
    case bool
    case int32
    case number
    /// google.protobuf.Duration: `"3.5s"`.
    case duration
    /// google.protobuf.Timestamp: an RFC 3339 time.
    case timestamp
    /// map<string, string>
    case stringMap
    /// google.protobuf.Struct: any JSON object.
    case anyObject
    case list(FCMMessageSchema)
    /// An enum: its proto type name and its values.
    case enumeration(String, Set<String>)
    /// A message: its proto type name and its fields by proto (snake_case) name.
    case message(String, [String: FCMMessageSchema])

    static let fcmPackage = "type.googleapis.com/google.firebase.fcm.v1."

    /// `Message`, the body's `message`.
    static let message = FCMMessageSchema.message(
        "Message",
        [
            "name": .string, "data": .stringMap, "token": .string, "topic": .string, "condition": .string,
            "fid": .string,
            "notification": .message("Notification", ["title": .string, "body": .string, "image": .string]),
            "android": android, "webpush": webpush, "apns": apns,
            "fcm_options": .message("FcmOptions", ["analytics_label": .string]),
        ])

    static let android = FCMMessageSchema.message(
        "AndroidConfig",
        [
            "collapse_key": .string,
            "priority": .enumeration("AndroidMessagePriority", ["NORMAL", "HIGH"]),
            "ttl": .duration, "restricted_package_name": .string, "data": .stringMap,
            "notification": androidNotification,
            "fcm_options": .message("AndroidFcmOptions", ["analytics_label": .string]),
            "direct_boot_ok": .bool, "bandwidth_constrained_ok": .bool, "restricted_satellite_ok": .bool,
        ])

    static let androidNotification = FCMMessageSchema.message(
        "AndroidNotification",
        [
            "title": .string, "body": .string, "icon": .string, "color": .string, "sound": .string, "tag": .string,
            "click_action": .string, "body_loc_key": .string, "body_loc_args": .list(.string),
            "title_loc_key": .string, "title_loc_args": .list(.string), "channel_id": .string, "ticker": .string,
            "sticky": .bool, "event_time": .timestamp, "local_only": .bool,
            "notification_priority": .enumeration(
                "NotificationPriority",
                [
                    "PRIORITY_UNSPECIFIED", "PRIORITY_MIN", "PRIORITY_LOW", "PRIORITY_DEFAULT", "PRIORITY_HIGH",
                    "PRIORITY_MAX",
                ]),
            "default_sound": .bool, "default_vibrate_timings": .bool, "default_light_settings": .bool,
            "vibrate_timings": .list(.duration),
            "visibility": .enumeration("Visibility", ["VISIBILITY_UNSPECIFIED", "PRIVATE", "PUBLIC", "SECRET"]),
            "notification_count": .int32,
            "light_settings": .message(
                "LightSettings",
                [
                    "color": .message(
                        "Color", ["red": .number, "green": .number, "blue": .number, "alpha": .number]),
                    "light_on_duration": .duration, "light_off_duration": .duration,
                ]),
            "image": .string, "bypass_proxy_notification": .bool,
            "proxy": .enumeration("Proxy", ["PROXY_UNSPECIFIED", "ALLOW", "DENY", "IF_PRIORITY_LOWERED"]),
        ])

    static let webpush = FCMMessageSchema.message(
        "WebpushConfig",
        [
            "headers": .stringMap, "data": .stringMap, "notification": .anyObject,
            "fcm_options": .message("WebpushFcmOptions", ["link": .string, "analytics_label": .string]),
        ])

    static let apns = FCMMessageSchema.message(
        "ApnsConfig",
        [
            "headers": .stringMap, "payload": .anyObject,
            "fcm_options": .message("ApnsFcmOptions", ["analytics_label": .string, "image": .string]),
            "live_activity_token": .string,
        ])

    /// The proto name of a JSON name: `collapseKey` → `collapse_key`.
    static func protoName(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase, character.isASCII {
                result += "_" + character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// `value` at `path` (e.g. `message.android`), or Google's refusal of it.
    func validate(_ value: JSONValue, at path: String) throws(FCMStatusError) {
        switch (self, value) {
        case (_, .null):
            return  // proto3 JSON: null is the default value
        case (.string, .string), (.bool, .bool), (.number, .number), (.anyObject, .object):
            return
        case (.int32, .number(let number)):
            guard number == number.rounded(), abs(number) <= Double(Int32.max) else {
                throw Self.invalidValue(at: path, type: "TYPE_INT32", value)
            }
        case (.int32, .string(let text)):
            guard Int32(text) != nil else { throw Self.invalidValue(at: path, type: "TYPE_INT32", value) }
        case (.duration, .string(let text)):
            guard Self.isDuration(text) else {
                throw Self.invalidValue(at: path, type: "type.googleapis.com/google.protobuf.Duration", value)
            }
        case (.timestamp, .string(let text)):
            guard RFC3339.parse(text) != nil else {
                throw Self.invalidValue(at: path, type: "type.googleapis.com/google.protobuf.Timestamp", value)
            }
        case (.stringMap, .object(let entries)):
            for (index, key) in entries.keys.sorted().enumerated() {
                guard case .string = entries[key] ?? .null else {
                    throw Self.invalidValue(at: "\(path)[\(index)].value", type: "TYPE_STRING", entries[key] ?? .null)
                }
            }
        case (.list(let element), .array(let items)):
            for (index, item) in items.enumerated() { try element.validate(item, at: "\(path)[\(index)]") }
        case (.enumeration(let type, let values), .number(let number)):
            // An enum's number is its JSON spelling too.
            guard number == number.rounded(), number >= 0, number < Double(values.count) else {
                throw Self.invalidValue(at: path, type: Self.fcmPackage + type, value)
            }
        case (.enumeration(let type, let values), .string(let text)):
            guard values.contains(text.uppercased()) else {
                throw Self.invalidValue(at: path, type: Self.fcmPackage + type, value)
            }
        case (.message(_, let fields), .object(let members)):
            for name in members.keys.sorted() {
                guard let field = fields[Self.protoName(name)] else {
                    throw FCMStatusError.invalidArgument(
                        "Invalid JSON payload received. Unknown name \"\(name)\" at '\(path)': Cannot find field.",
                        field: path, errorCode: nil)
                }
                try field.validate(members[name] ?? .null, at: "\(path).\(Self.protoName(name))")
            }
        default:
            throw Self.invalidValue(at: path, type: typeName, value)
        }
    }

    /// How Google names the expected type in its refusal.
    private var typeName: String {
        switch self {
        case .string, .duration, .timestamp: "TYPE_STRING"
        case .bool: "TYPE_BOOL"
        case .int32: "TYPE_INT32"
        case .number: "TYPE_FLOAT"
        case .stringMap, .anyObject: "type.googleapis.com/google.protobuf.Struct"
        case .list: "TYPE_LIST"
        case .enumeration(let type, _): Self.fcmPackage + type
        case .message(let type, _): Self.fcmPackage + type
        }
    }

    private static func invalidValue(at path: String, type: String, _ value: JSONValue) -> FCMStatusError {
        let shown = (try? value.encodedData()).map { String(decoding: $0.prefix(200), as: UTF8.self) } ?? ""
        return .invalidArgument("Invalid value at '\(path)' (\(type)), \(shown)", field: path, errorCode: nil)
    }

    /// `"3.5s"`: seconds, up to nine decimals, then `s`.
    private static func isDuration(_ text: String) -> Bool {
        guard text.hasSuffix("s") else { return false }
        let number = text.dropLast().split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = number.first else { return false }
        let digits = whole.hasPrefix("-") ? whole.dropFirst() : whole
        guard (1...12).contains(digits.count), digits.allSatisfy(\.isASCIIDigit) else { return false }
        guard number.count == 2 else { return true }
        let fraction = number[1]
        return (1...9).contains(fraction.count) && fraction.allSatisfy(\.isASCIIDigit)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
