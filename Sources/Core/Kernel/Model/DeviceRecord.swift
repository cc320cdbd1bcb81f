import Foundation

/// A device document read back: one installation subscribed to one agent.
public struct DeviceRecord: Sendable, Hashable {
    public let path: DocumentPath
    /// Every push address it holds, in the formats' delivery order.
    public let addresses: [DeviceToken]
    /// Its app, and its address's environment when its service has them.
    public let route: DeliveryRoute
    /// Its installation's ActivityKit push-to-start token, and the update token of the
    /// Live Activity running for this agent on it (issue 64).
    public let activityStartToken: String?
    public let activityToken: String?
    /// Until when its app shows this agent's chat (`appState`, issue 75).
    public let foregroundUntil: Date?
    /// Its installation's quiet hours (`quiet_hours`, issue 75).
    public let quietHours: QuietHours?
    /// Its delivery address's service lets a push show nothing (``PushAddressFormat/allowsSilentPushes``).
    public let allowsSilentPushes: Bool

    /// The fields a record reads: a fan-out asks the store for these only. A trigger's
    /// own read adds the Live Activity tokens (`activities`); an expansion's pages,
    /// which send ordinary pushes only, do not read them.
    public static func fieldsRead(_ formats: PushAddressFormats, activities: Bool = false) -> [String] {
        formats.documentFields + [FieldName.bundleID] + formats.environmentFields
            + [FieldName.payloadKeys, FieldName.decisionKey, FieldName.foregroundUntil, FieldName.platform]
            + [FieldName.quietHours]
            + (activities ? [FieldName.activityStartToken, FieldName.activityToken] : [])
    }

    /// `formats` say which fields hold addresses, and which comes first.
    public init(document: Document, formats: PushAddressFormats) {
        self.path = document.path
        // One pass, on a fan-out's path for every device: the first address found is
        // the one delivered to, and its service says whether the route keeps an
        // environment, and whether it seals pushes itself (Web Push: the device's
        // payload keys are not used).
        var addresses: [DeviceToken] = []
        var environments: PushEnvironments?
        var sealsItself = false
        var allowsSilentPushes = true
        for format in formats.all {
            guard let value = document.string(format.documentField) else { continue }
            if addresses.isEmpty {
                environments = format.environments
                sealsItself = format.sealsItself
                allowsSilentPushes = format.allowsSilentPushes
            }
            addresses.append(DeviceToken(kind: format.service, value: value))
        }
        self.addresses = addresses
        activityStartToken = document.string(FieldName.activityStartToken)
        activityToken = document.string(FieldName.activityToken)
        self.allowsSilentPushes = allowsSilentPushes
        foregroundUntil = document.string(FieldName.foregroundUntil).flatMap(RFC3339.parse)
        quietHours = document.fields[FieldName.quietHours].flatMap { QuietHours(stored: $0) }
        let sealing = sealsItself ? nil : PayloadSealing(field: document.fields[FieldName.payloadKeys])
        let app = document.string(FieldName.bundleID)
        let decides = document.string(FieldName.decisionKey) != nil
        // An Android app draws what it can answer from a data message (issue 83).
        let drawsItsOwn = decides && document.string(FieldName.platform) == "android"
        self.route =
            environments.map { environments in
                DeliveryRoute(
                    app: app, environment: document.string(environments.documentField).flatMap(environments.stored),
                    environmentStated: document.fields[environments.learnedField] != .bool(true), sealing: sealing,
                    decides: decides, drawsItsOwn: drawsItsOwn)
            } ?? DeliveryRoute(app: app, sealing: sealing, decides: decides, drawsItsOwn: drawsItsOwn)
    }

    public var installationID: String { path.documentID }

    /// Every address the device holds, each text once.
    public var tokens: [String] {
        addresses.count < 2 ? addresses.map(\.value) : addresses.map(\.value).uniqued()
    }

    /// The address to deliver to: the first in the formats' order (APNs before FCM:
    /// Pushgate talks to APNs directly); `nil` for a document with none.
    public var deliveryToken: DeviceToken? { addresses.first }

    /// Device documents read from several agents (a collection-group query lists
    /// them by path: agent first) by installation, then path: the order in which
    /// ``DeviceSelection`` keeps the first of each phone.
    public static func byInstallation(_ devices: [DeviceRecord]) -> [DeviceRecord] {
        devices.sorted { ($0.installationID, $0.path.rawValue) < ($1.installationID, $1.path.rawValue) }
    }
}

extension Array where Element: Hashable {
    /// The elements, each once, in their first order.
    fileprivate func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
