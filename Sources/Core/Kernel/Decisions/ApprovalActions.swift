/// What a push the phone can answer carries to a phone that can (a decision key,
/// issues 73 and 74), so that the person answers from the lock screen: the
/// notification category the app registered its actions under (APNs `aps.category`,
/// FCM `data.category`) — Allow and Deny for an approval, a text input for a question
/// or an answerable reply — and the actions themselves where a push names them (FCM
/// `data.actions`, a Web Push's `actions`, ``DecisionKind/actions``). Per app
/// (`PUSHGATE_APPROVAL_CATEGORY`, `PUSHGATE_REPLY_CATEGORY`; `approval_category:`,
/// `reply_category:` in `apps:`). A phone without a decision key gets today's push.
public struct ApprovalActions: Sendable, Hashable {
    public static let defaultCategory = "PUSHGATE_APPROVAL"
    public static let defaultAlwaysCategory = "PUSHGATE_APPROVAL_ALWAYS"
    public static let defaultReplyCategory = "PUSHGATE_REPLY"

    public var category: String
    /// An approval that offers "always allow" (issue 84): Allow, Always, Deny.
    public var alwaysCategory: String
    public var replyCategory: String

    public init(
        category: String = defaultCategory, alwaysCategory: String = defaultAlwaysCategory,
        replyCategory: String = defaultReplyCategory
    ) {
        self.category = category
        self.alwaysCategory = alwaysCategory
        self.replyCategory = replyCategory
    }

    /// The category a push of `kind` carries.
    public func category(for kind: DecisionKind) -> String {
        switch kind {
        case .approval: category
        case .approvalWithAlways: alwaysCategory
        case .answer: replyCategory
        }
    }

    /// The settings, each may be given per app.
    public static let settings: [AnySetting] = [
        Setting<String>.approvalCategory.erased, Setting<String>.approvalAlwaysCategory.erased,
        Setting<String>.replyCategory.erased,
    ]

    /// One app's (the gateway's settings, or the app's over them).
    public static func read(from settings: some SettingReading) throws(ConfigurationError) -> ApprovalActions {
        ApprovalActions(
            category: try settings.value(.approvalCategory),
            alwaysCategory: try settings.value(.approvalAlwaysCategory),
            replyCategory: try settings.value(.replyCategory))
    }
}

extension Setting {
    public static var approvalCategory: Setting<String> {
        categoryName(
            "approval_category", default: ApprovalActions.defaultCategory,
            "The notification category an approval carries to a phone with a decision key (its Allow and Deny actions)."
        )
    }

    public static var approvalAlwaysCategory: Setting<String> {
        categoryName(
            "approval_always_category", default: ApprovalActions.defaultAlwaysCategory,
            "The notification category an approval that offers \"always allow\" carries to a phone with a decision key (its Allow, Always and Deny actions)."
        )
    }

    public static var replyCategory: Setting<String> {
        categoryName(
            "reply_category", default: ApprovalActions.defaultReplyCategory,
            "The notification category a question or an answerable reply carries to a phone with a decision key (its text input action)."
        )
    }

    /// A notification category's name: what iOS and Android apps register one under.
    private static func categoryName(_ name: String, default value: String, _ help: String) -> Setting<String> {
        Setting<String>(name, default: value, help) { text in
            (1...64).contains(text.utf8.count)
                && text.utf8.allSatisfy {
                    (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                        || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
                }
                ? .success(text) : .failure(.mustBe("1 to 64 of A-Z, a-z, 0-9, _, - and .", not: text))
        }
    }
}
