import Foundation
import Logging
import PushgateCore
import PushgateDelivery
import PushgateFunctions
import PushgateInstalledServices
import PushgateProviderKit

/// The parts behind the HTTP functions — the store, the outbox, the worker that
/// delivers through the provider — and every function over them. Built once; the
/// router and the services share them. A new function is built here and routed in
/// ``FunctionRoutes``.
public struct GatewayParts: Sendable {
    public let store: any DocumentStore
    public let outbox: any Outbox
    public let worker: DeliveryWorker
    public let policy: DeliveryPolicy
    public let admission: AdmissionPolicy
    /// The push services whose addresses devices register and hold.
    public let formats: PushAddressFormats
    /// The public answers the push services publish, by path (``GatewaySetup/documents``).
    public let documents: [String: JSONValue]
    let now: @Sendable () -> Date

    let registerSubscription: RegisterSubscriptionFunction
    let registerActivity: RegisterActivityFunction
    let triggerEvent: TriggerEventFunction
    let triggerReplyFinished: TriggerReplyFinishedFunction
    let resolveEvent: ResolveEventFunction
    let decideEvent: DecideEventFunction
    let awaitDecision: AwaitDecisionFunction
    let startPairing: StartPairingFunction
    let completePairing: CompletePairingFunction
    let awaitPairing: AwaitPairingFunction
    let openPairings: OpenPairingsFunction
    let replies: RepliesFunction
    let sayToAgent: SayToAgentFunction
    let eventStatus: EventStatusFunction
    let receipts: ReceiptsFunction
    let appState: AppStateFunction
    let claudeHook: ClaudeHookFunction
    /// The `awaitDecision` calls this process holds.
    public let decisionWaits: DecisionWaits
    let unregisterSubscription: UnregisterSubscriptionFunction
    let unregisterInstallation: UnregisterInstallationFunction
    let subscriptions: SubscriptionsFunction
    let heartbeat: HeartbeatFunction
    let ping: PingFunction
    let diagnostics: DiagnosticsFunction

    public init(
        store: any DocumentStore,
        outbox: any Outbox,
        changes: (any DocumentChangeFeed)? = nil,
        provider: any PushProvider,
        formats: PushAddressFormats = .installed,
        documents: [String: JSONValue] = [:],
        apps: ConfiguredApps? = nil,
        policy: DeliveryPolicy = DeliveryPolicy(),
        admission: AdmissionPolicy = AdmissionPolicy(),
        presence: PresencePolicy = PresencePolicy(),
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger
    ) {
        self.store = store
        self.outbox = outbox
        self.policy = policy
        self.admission = admission
        self.formats = formats
        self.documents = documents
        self.now = now
        worker = DeliveryWorker(
            store: store, outbox: outbox, provider: provider, formats: formats, apps: apps, policy: policy,
            now: now,
            logger: logger)

        registerSubscription = RegisterSubscriptionFunction(store: store, admission: admission, now: now)
        registerActivity = RegisterActivityFunction(store: store, worker: worker, policy: policy, now: now)
        triggerEvent = TriggerEventFunction(
            store: store, outbox: outbox, worker: worker, policy: policy, now: now, logger: logger)
        triggerReplyFinished = TriggerReplyFinishedFunction(trigger: triggerEvent)
        decisionWaits = DecisionWaits(store: store, feed: changes, limitPerNamespace: admission.maxWaitingDecisions)
        resolveEvent = ResolveEventFunction(
            store: store, outbox: outbox, worker: worker, waits: decisionWaits, policy: policy, now: now)
        decideEvent = DecideEventFunction(
            store: store, outbox: outbox, worker: worker, waits: decisionWaits, policy: policy, now: now)
        awaitDecision = AwaitDecisionFunction(
            store: store, waits: decisionWaits, longestWait: .seconds(admission.maxDecisionWait))
        startPairing = StartPairingFunction(store: store, now: now)
        completePairing = CompletePairingFunction(store: store, waits: decisionWaits, now: now)
        awaitPairing = AwaitPairingFunction(
            store: store, waits: decisionWaits, longestWait: .seconds(admission.maxDecisionWait), now: now)
        openPairings = OpenPairingsFunction(store: store, now: now)
        replies = RepliesFunction(
            store: store, waits: decisionWaits, longestWait: .seconds(admission.maxDecisionWait))
        sayToAgent = SayToAgentFunction(store: store, waits: decisionWaits, now: now)
        eventStatus = EventStatusFunction(store: store, outbox: outbox, formats: formats)
        receipts = ReceiptsFunction(outbox: outbox, now: now)
        appState = AppStateFunction(store: store, now: now)
        claudeHook = ClaudeHookFunction(
            triggerEvent: triggerEvent, resolveEvent: resolveEvent, awaitDecision: awaitDecision,
            appURLSchemes: admission.appURLSchemes, now: now)
        unregisterSubscription = UnregisterSubscriptionFunction(store: store, outbox: outbox, now: now)
        unregisterInstallation = UnregisterInstallationFunction(store: store, outbox: outbox, now: now)
        subscriptions = SubscriptionsFunction(store: store, formats: formats)
        heartbeat = HeartbeatFunction(store: store, presence: presence, now: now)
        ping = PingFunction(store: store)
        diagnostics = DiagnosticsFunction(store: store, outbox: outbox, formats: formats, presence: presence, now: now)
    }
}
