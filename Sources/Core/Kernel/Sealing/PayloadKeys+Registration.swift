import PushgateSealing

extension PayloadKeys {
    /// The keys of a registration's object named `field` (`payload_keys`, a Web Push
    /// subscription's `webpush.keys`): `p256dh` and `auth` as base64url strings, other
    /// members ignored; anything else is the request error naming the member.
    public init(registered keys: JSONValue?, field: String) throws(FunctionError) {
        guard case .object(let keys)? = keys else {
            throw .invalidArgument("'\(field)' must be an object with 'p256dh' and 'auth'", field: field)
        }
        guard case .string(let p256dh)? = keys["p256dh"], case .string(let auth)? = keys["auth"] else {
            throw .invalidArgument("'\(field)' must hold 'p256dh' and 'auth' as strings", field: field)
        }
        do {
            try self.init(p256dh: p256dh, auth: auth)
        } catch {
            throw .invalidArgument("'\(field).\(error.field)' must be \(error.rule)", field: "\(field).\(error.field)")
        }
    }
}
