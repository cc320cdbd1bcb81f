/// One notification, the same for every device of a fan-out (but for its badge).
public struct PushNotification: Sendable, Hashable, Codable {
    public var title: String
    public var body: String
    /// Custom keys beside `aps` (APNs), each keeping its JSON type there; in FCM's
    /// `data` map, which holds strings only, a value that is not a string is its
    /// JSON text (FCMMessage).
    public var data: [String: JSONValue]
    /// `apns-collapse-id`: a newer notification with the same id replaces the older one.
    public var collapseID: String
    public var sound: String
    /// `aps.thread-id`: groups notifications on the device.
    public var threadID: String?
    /// `aps.interruption-level`: `passive`, `active` or `time-sensitive`.
    public var interruptionLevel: String?
    /// Sends each device its own count of unresolved approvals as `aps.badge`.
    public var showsBadge: Bool
    /// `aps.content-available = 1`: the app is woken too (to fetch the reply). Always
    /// set through FCM, as the production gateway sends it.
    public var contentAvailable: Bool
    /// A silent push that only sets the icon's badge to each device's count
    /// (``badgeUpdate(serverKey:resolved:)``): APNs `alert` at priority 5,
    /// `{"aps": {"badge": n}}` (and what wakes the app, after a resolved event) and no
    /// alert or sound.
    public var isBadgeUpdate: Bool
    /// How soon the device should wake for it, where the service asks (Web Push's
    /// `Urgency`): set per event type (``EventUrgencies/defaults``), then by the
    /// app's urgency table as it is sent (``EventUrgencies``).
    public var urgency: PushUrgency
    /// `aps.relevance-score` (0 to 1: the notification summary's order), from the
    /// app's urgency table as it is sent (``EventUrgencies``); never stored.
    public var relevanceScore: Double? = nil
    /// The sealed record (base64url) of what this push holds, for one device that
    /// registered payload keys (``PushSealing``): sent beside the neutral text as
    /// `encrypted` with `mutable-content`, so that the app's Notification Service
    /// Extension opens it. Set per device as it is sent; never stored.
    public var encrypted: String?
    /// The notification category that shows the actions of what the phone can answer
    /// (`aps.category`, FCM `data.category`), for a phone that can (``PayloadVariant``),
    /// and which answer it offers; set per device as it is sent, never stored.
    public var category: String?
    public var offeredDecision: DecisionKind?
    /// Sent as data only, for the device's app to draw with its actions (an Android
    /// app, issue 83: ``DeliveryRoute/drawsItsOwn``); set per device as it is sent,
    /// never stored.
    public var drawnByApp = false
    /// The collapse and thread ids its sealed devices get in clear, keyed
    /// (``SealedIDKey``, issue 72); `nil` for a notification stored before, or one
    /// made without the push secret (a badge update): those ids are then hashed.
    public var sealedIDs: SealedIDs?
    /// The event id `eventStatus` finds the push by (issue 75): the caller's
    /// `event_id`, or one the gateway made for a trigger that had none; the same on
    /// the event's reminders and its Live Activity push. Kept with the stored
    /// content, never sent (the push names the caller's `event_id` in its data).
    public var trackingID: String?
    /// Why the installations of this push get it silently or not at all (issue 75):
    /// set on the twin of an event's push that goes to them. Kept with the stored
    /// content, never sent.
    public var heldBack: HoldBack?
    /// An ActivityKit push (issue 64) instead of an alert: sent to Live Activity
    /// tokens as `apns-push-type: liveactivity`, its payload the push's own
    /// (``LiveActivityPush/payload()``); title, body and data are then not sent.
    public var liveActivity: LiveActivityPush?

    public init(
        title: String,
        body: String,
        data: [String: JSONValue],
        collapseID: String,
        sound: String = "default",
        threadID: String? = nil,
        interruptionLevel: String? = nil,
        showsBadge: Bool = false,
        contentAvailable: Bool = false,
        isBadgeUpdate: Bool = false,
        urgency: PushUrgency = .normal
    ) {
        self.title = title
        self.body = body
        self.data = data
        self.collapseID = collapseID
        self.sound = sound
        self.threadID = threadID
        self.interruptionLevel = interruptionLevel
        self.showsBadge = showsBadge
        self.contentAvailable = contentAvailable
        self.isBadgeUpdate = isBadgeUpdate
        self.urgency = urgency
    }

    /// What `resolveEvent` and an approval's expiry send the installations it
    /// counted: no alert, no sound, only each one's count of approvals still pending
    /// (read at send time). Its data names it for apps (FCM's Android devices) that
    /// set the badge themselves, and the event it follows.
    ///
    /// A push service that allows no push that shows nothing (Web Push: Safari
    /// revokes the permission, Chrome shows "site updated in the background") shows
    /// `resolved`'s line instead, in place of the event's own notification (its
    /// collapse id: the same `Topic` and `tag`): "Approved" where "Approval needed"
    /// was (issue 72).
    ///
    /// After a resolved event it is also the event's withdrawal (issue 73): its
    /// `type` is `event_resolved`, and it wakes an iPhone's app (`content-available`,
    /// beside the badge: ``BadgePayload``) so that the app removes the event's
    /// delivered notification; an Android app does on the data message, a service
    /// worker on the plaintext.
    public static func badgeUpdate(serverKey: String, resolved: ResolvedEvent? = nil) -> PushNotification {
        var data: [String: JSONValue] = [
            "type": resolved == nil ? "badge_update" : "event_resolved", "server_key": .string(serverKey),
        ]
        data["event_id"] = resolved.map { .string($0.eventID) }
        data["resolution"] = resolved.map { .string($0.resolution) }
        return PushNotification(
            title: resolved?.title ?? "", body: resolved?.line ?? "", data: data,
            collapseID: resolved?.collapseID ?? "",
            sound: "", showsBadge: true, contentAvailable: resolved != nil, isBadgeUpdate: true, urgency: .low)
    }

    /// What an installation whose app shows the agent's chat gets instead of
    /// `notification` (issue 75): no alert, no sound, the event's data for the app to
    /// show in the chat — the same silent push as a resolved event's (an APNs `alert`
    /// at priority 5 carrying the badge and `content-available`, an FCM data message),
    /// with each device's count of approvals as its badge.
    public static func silentUpdate(of notification: PushNotification, heldBack reason: HoldBack) -> PushNotification {
        var update = PushNotification(
            title: "", body: "", data: notification.data, collapseID: "", sound: "", showsBadge: true,
            contentAvailable: true, isBadgeUpdate: true, urgency: .low)
        // What the alert would have shown, for the chat (the caller's own keys win).
        update.data["title"] = update.data["title"] ?? .string(notification.title)
        update.data["body"] = update.data["body"] ?? .string(notification.body)
        update.trackingID = notification.trackingID
        update.heldBack = reason
        return update
    }

    /// The badge `target` is sent: its count when the notification shows badges, else none.
    public func badge(for target: DeliveryTarget) -> Int? {
        showsBadge ? target.badge : nil
    }

    enum CodingKeys: String, CodingKey {
        case title, body, data, collapseID, sound, threadID, interruptionLevel, showsBadge, contentAvailable, urgency,
            liveActivity, sealedIDs, trackingID, heldBack
        case isBadgeUpdate = "badgeUpdate"
    }

    /// Reads what the outbox stored, including notifications stored before a field existed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title)
        body = try container.decode(String.self, forKey: .body)
        // Stored strings (all a notification held before data kept its types) read as such.
        data = try container.decode([String: JSONValue].self, forKey: .data)
        collapseID = try container.decode(String.self, forKey: .collapseID)
        sound = try container.decodeIfPresent(String.self, forKey: .sound) ?? "default"
        threadID = try container.decodeIfPresent(String.self, forKey: .threadID)
        interruptionLevel = try container.decodeIfPresent(String.self, forKey: .interruptionLevel)
        showsBadge = try container.decodeIfPresent(Bool.self, forKey: .showsBadge) ?? false
        contentAvailable = try container.decodeIfPresent(Bool.self, forKey: .contentAvailable) ?? false
        isBadgeUpdate = try container.decodeIfPresent(Bool.self, forKey: .isBadgeUpdate) ?? false
        // Stored before urgency was: what the event type's default was then, for
        // the one type that is not `normal`.
        liveActivity = try container.decodeIfPresent(LiveActivityPush.self, forKey: .liveActivity)
        sealedIDs = try container.decodeIfPresent(SealedIDs.self, forKey: .sealedIDs)
        trackingID = try container.decodeIfPresent(String.self, forKey: .trackingID)
        heldBack = try container.decodeIfPresent(HoldBack.self, forKey: .heldBack)
        urgency =
            try container.decodeIfPresent(PushUrgency.self, forKey: .urgency)
            ?? (isBadgeUpdate ? .low : (data["type"] == "approval_requested" ? .high : .normal))
    }
}
