import PushgateAPNs
import PushgateCore
import PushgateFCM
import PushgateProviderKit
import PushgateWebPush

/// The push services this build installs, one line each, in the order a device
/// holding addresses of several is delivered to. A new service adds its target (its
/// address format, its settings, its provider: a ``PushServicePlugin``) and its line
/// here (ARCHITECTURE.md, "Adding a push service").
public enum PushServicePlugins {
    /// A new set each time: a plug-in may hold what its apps share (APNs's connections).
    public static func installed() -> [any PushServicePlugin] {
        [
            APNsPlugin(),
            FCMPlugin(),
            WebPushPlugin(),
        ]
    }
}

extension PushServicePlugins {
    /// The installed services' rules for an app of `apps:` that gives a setting no
    /// value (``PerAppRule``), by setting key.
    public static let perAppRules: [String: PerAppRule] = Dictionary(
        installed().flatMap(\.perAppRules).map { ($0.setting.key, $0) }, uniquingKeysWith: { first, _ in first })
}

extension PushAddressFormats {
    /// The installed services' address formats, in delivery order.
    public static let installed = PushAddressFormats(PushServicePlugins.installed().map(\.format))
}
