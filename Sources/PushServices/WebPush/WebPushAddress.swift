import PushgateCore

extension PushServiceID {
    /// Web Push (RFC 8030): browsers' push services and UnifiedPush distributors,
    /// devices registered with `webpush`.
    public static let webpush = PushServiceID(declared: "webpush")
}

extension DeviceToken {
    /// A Web Push subscription, as stored (``WebPushSubscription/storedText``).
    public static func webpush(_ subscription: String) -> DeviceToken {
        DeviceToken(kind: .webpush, value: subscription)
    }
}

/// A Web Push subscription as the gateway takes it: `registerSubscription`'s
/// `webpush`, `PushSubscription.toJSON()` as the browser gives it, checked and stored
/// as one JSON text (``WebPushSubscription``).
public enum WebPushAddress {
    /// The format with the strictest rules: https endpoints on public addresses.
    public static let format = format(rules: .init())

    /// The format whose registrations are held to `rules` (the gateway's settings).
    public static func format(rules: WebPushEndpoint.Rules) -> PushAddressFormat {
        let vetted: @Sendable (String) async throws(FunctionError) -> Void = { stored throws(FunctionError) in
            try await EndpointVetting.check(stored, field: "webpush.endpoint")
        }
        return PushAddressFormat(
            service: .webpush, name: "Web Push", registrationField: "webpush",
            storedForm: #"a JSON object {"endpoint","p256dh","auth"}"#, sealsItself: true, allowsSilentPushes: false,
            configuredBy: Setting<String>.webPushVAPIDKeyPath.environmentName,
            registered: { body, field throws(FunctionError) in
                // Members other than the endpoint and keys are ignored, as unknown fields are.
                try body.optionalObject(field, checksTexts: false).map { object throws(FunctionError) in
                    try WebPushSubscription(registered: object, field: field, rules: rules).storedText
                }
            },
            // A look-up by token may name the stored text or the browser's JSON of it.
            stored: { text in (WebPushSubscription(stored: text) ?? WebPushSubscription(browserJSON: text))?.storedText
            },
            admitted: rules.allowsPrivateAddresses ? nil : vetted,
            preview: { stored in WebPushSubscription(stored: stored)?.endpoint.origin ?? String(stored.prefix(8)) })
    }
}
