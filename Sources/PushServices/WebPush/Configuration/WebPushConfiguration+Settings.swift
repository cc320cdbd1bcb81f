import PushgateCore

extension WebPushConfiguration {
    /// Web Push's settings made into a working configuration, the VAPID key read;
    /// `nil` when no key is configured (devices with Web Push subscriptions then fail
    /// `no_webpush_provider`); else one line naming the setting at fault.
    public static func read(from settings: some SettingReading) throws(ConfigurationError) -> WebPushConfiguration? {
        let keyPath = Setting<String>.webPushVAPIDKeyPath.erased
        let subject = Setting<String>.webPushSubject.erased
        guard let path = try settings.optional(.webPushVAPIDKeyPath) else {
            if let stray = settings.firstGiven(of: [subject, Setting<String>.webPushCAFile.erased], here: true) {
                throw ConfigurationError(
                    "\(settings.name(of: stray)) is set but \(settings.name(of: keyPath)) is not: make a key with pushgate keygen --vapid FILE"
                )
            }
            return nil
        }
        guard let contact = try settings.optional(.webPushSubject) else {
            throw ConfigurationError(
                "\(settings.name(of: keyPath)) is set but \(settings.name(of: subject)) is not: give a mailto: or https: contact (push services require one)"
            )
        }
        let key: VAPIDKey
        do {
            key = try VAPIDKey(contentsOf: path)
        } catch {
            throw ConfigurationError("\(settings.name(of: keyPath)): \(error.description)")
        }
        var configuration = WebPushConfiguration(
            vapidKey: key, subject: contact, extraTrustedCAFile: try settings.optional(.webPushCAFile),
            endpointRules: try rules(from: settings),
            timeToLive: try settings.value(.webPushTTL), connectionsPerOrigin: try settings.value(.webPushConnections))
        configuration.caFileSetting = settings.name(of: Setting<String>.webPushCAFile.erased)
        configuration.urgencies = try EventUrgencies.read(from: settings)
        configuration.declarativeHosts = try settings.value(.webPushDeclarativeHosts)
        configuration.navigateURL = try settings.optional(.webPushNavigateURL)
        return configuration
    }

    /// What a registration's endpoint may be: read whether or not Web Push is
    /// configured (a subscription is checked at registration either way).
    public static func rules(from settings: some SettingReading) throws(ConfigurationError) -> WebPushEndpoint.Rules {
        WebPushEndpoint.Rules(
            allowsHTTP: try settings.value(.webPushAllowHTTP),
            allowsPrivateAddresses: try settings.value(.webPushAllowPrivateEndpoints))
    }
}
