/// The sealed pushes' settings (`PUSHGATE_SEALED_*`; per app `sealed: {title, body}`
/// and `sealed_only`), read by every push service that seals with them (APNs, FCM).
extension Setting {
    public static var sealedTitle: Setting<String> {
        .neutralText(
            "sealed_title", default: PushSealing.defaultTitle,
            "The title a sealed push shows in clear (Apple and Google read it): generic words.")
    }
    public static var sealedBody: Setting<String> {
        .neutralText(
            "sealed_body", default: PushSealing.defaultBody,
            "The body a sealed push shows in clear until the app opens it: generic words.")
    }
    public static var sealedOnly: Setting<Bool> {
        .onOff(
            "sealed_only", default: "off",
            "on: registrations with an APNs or FCM token must give payload_keys, and a device without keys gets the neutral text alone."
        )
    }

    /// One line of at most 100 characters, no control characters: what every lock
    /// screen shows of a sealed push.
    static func neutralText(_ key: String, default defaultValue: String, _ help: String) -> Setting<String> {
        Setting<String>(key, default: defaultValue, help) { text in
            guard text.count <= 100, InvisibleCharacters.first(in: text, allowing: []) == nil else {
                // The text itself is not echoed: it may hold the line break at fault.
                return .failure(SettingProblem(" must be one line of at most 100 characters, no control characters"))
            }
            return .success(text)
        }
    }
}

extension PushSealing {
    /// The settings in the order help and `pushgate config` show them; each may be
    /// given per app.
    public static let settings: [AnySetting] = [
        Setting<String>.sealedTitle.erased, Setting<String>.sealedBody.erased, Setting<Bool>.sealedOnly.erased,
    ]

    /// One app's rule (the gateway's settings, or the app's over them).
    public static func read(from settings: some SettingReading) throws(ConfigurationError) -> PushSealing {
        PushSealing(
            title: try settings.value(.sealedTitle), body: try settings.value(.sealedBody),
            sealedOnly: try settings.value(.sealedOnly))
    }
}
