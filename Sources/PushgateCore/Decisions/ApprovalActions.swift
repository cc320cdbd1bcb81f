/// What an approval's push carries to a phone that can decide it (a decision key,
/// issue 73), so that the person answers from the lock screen: the notification
/// category the app registered its Allow and Deny actions under (APNs `aps.category`,
/// FCM `data.category`), and the actions themselves where a push names them (FCM
/// `data.actions`, a Web Push's `actions`). Per app (`PUSHGATE_APPROVAL_CATEGORY`,
/// `approval_category:` in `apps:`). A phone without a decision key gets today's push.
public struct ApprovalActions: Sendable, Hashable {
    public static let defaultCategory = "PUSHGATE_APPROVAL"
    /// The actions, by their ids (the decision each makes) and titles.
    public static let actions: [(id: String, title: String)] = [("allow", "Allow"), ("deny", "Deny")]

    public var category: String

    public init(category: String = defaultCategory) {
        self.category = category
    }

    /// The settings, each may be given per app.
    public static let settings: [AnySetting] = [Setting<String>.approvalCategory.erased]

    /// One app's (the gateway's settings, or the app's over them).
    public static func read(from settings: some SettingReading) throws(ConfigurationError) -> ApprovalActions {
        ApprovalActions(category: try settings.value(.approvalCategory))
    }
}

extension Setting {
    public static var approvalCategory: Setting<String> {
        Setting<String>(
            "approval_category", default: ApprovalActions.defaultCategory,
            "The notification category an approval carries to a phone with a decision key (its Allow and Deny actions)."
        ) { text in
            (1...64).contains(text.utf8.count)
                && text.utf8.allSatisfy {
                    (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                        || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
                }
                ? .success(text) : .failure(.mustBe("1 to 64 of A-Z, a-z, 0-9, _, - and .", not: text))
        }
    }
}

extension PushNotification {
    /// Whether it asks for a decision a phone can make: an approval (or its reminder)
    /// with an event id.
    public var isDecidable: Bool {
        data["type"] == .string(EventType.approvalRequested.rawValue) && data["event_id"]?.stringValue != nil
    }
}
