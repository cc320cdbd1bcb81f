import Foundation
import PushgateCore
import PushgateSealing

/// `registerSubscription`: subscribes one installation to one agent's pushes.
///
/// Upserts the server, agent and device documents in one atomic write, keeping
/// creation times. A registration sets the device's tokens to the ones it carries
/// (a token kind not sent is removed, so a stale token never outlives its
/// replacement); other optional fields not sent keep their stored value (the payload
/// keys too: a token change keeps them). When the tokens or keys are new, the same installation's devices under the server's other agents
/// get them too before the call is answered: one call rotates a token everywhere.
/// That rotation is written after the device, a hundred devices a transaction
/// (``rotationBatch``), and only while the device still holds the tokens it
/// spreads (a later registration spreads its own): an installation under
/// thousands of agents changing its token at its rate limit never holds the store
/// for long, and other namespaces' writes go between its batches (each batch is a
/// ``StoreWriteLane/bulk`` write: the store's writer serves waiting registrations
/// between any two of them).
///
/// A new device beyond ``AdmissionPolicy/maxDevicesPerAgent``, or a new agent beyond
/// ``AdmissionPolicy/maxAgentsPerServer``, is refused (`LIMIT_REACHED`); a device or
/// agent already stored always registers again. The reads that decide it are made in
/// the store's transaction (``DocumentStore/runTransaction(_:)``): on SQLite the caps
/// are exact; on a store that reads before it commits (PostgreSQL), two registrations
/// racing for the last place may both get it, so the caps bound growth there.
public struct RegisterSubscriptionFunction: Sendable {
    private let store: any DocumentStore
    private let admission: AdmissionPolicy
    private let now: @Sendable () -> Date

    public init(
        store: any DocumentStore, admission: AdmissionPolicy = AdmissionPolicy(),
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.store = store
        self.admission = admission
        self.now = now
    }

    /// `admitNewNamespace` is asked before a registration creates its server's
    /// namespace, and throws to refuse it (the limit on new namespaces per address).
    public func callAsFunction(
        secret: PushSecret,
        _ request: RegisterSubscriptionRequest,
        admitNewNamespace: @escaping @Sendable () throws -> Void = {}
    ) async throws -> RegisterSubscriptionAnswer {
        if let apps = admission.apps, let bundleID = request.bundleID, !apps.contains(bundleID) {
            // The message names no app: another tenant's apps are not this caller's to learn.
            throw FunctionError.invalidArgument("'bundle_id' names no app this gateway serves", field: "bundle_id")
        }
        if request.lacksPayloadKeys, admission.requiresPayloadKeys(bundleID: request.bundleID) {
            throw FunctionError.invalidArgument(
                "'payload_keys' is required: this app's pushes go out sealed only, never in clear (sealed_only)",
                field: "payload_keys")
        }
        let serverKey = secret.serverKey
        let agentKey = AgentKey(cwd: request.cwd)
        let now = self.now()
        let timestamp = JSONValue.string(RFC3339.format(now))
        let devicePath = try NamespacePaths.device(request.installationID, of: agentKey, of: serverKey)

        // The addresses, and the payload keys, push-to-start token, decision key, device
        // name and quiet hours when given: what one installation holds under every agent, and a
        // rotation spreads.
        var tokenFields = Dictionary(
            request.addresses.map { ($0.documentField, $0.address.map { FieldValue.value(.string($0)) } ?? .delete) }
        ) { first, _ in first }
        tokenFields[FieldName.payloadKeys] = request.payloadKeys.map { .value(PayloadSealing.field($0)) }
        tokenFields[FieldName.activityStartToken] = request.activityStartToken.map { .value(.string($0)) }
        tokenFields[FieldName.decisionKey] = request.decisionKey.map { .value(.string($0.text)) }
        tokenFields[FieldName.deviceName] = request.deviceName.map { .value(.string($0)) }
        tokenFields[FieldName.quietHours] = request.quietHours.map { hours in hours.map { .value($0.stored) } ?? .delete
        }

        var agentFields: [String: FieldValue] = [
            FieldName.cwd: .value(.string(request.cwd)),
            FieldName.createdAt: .valueIfAbsent(timestamp),
            FieldName.updatedAt: .value(timestamp),
        ]
        agentFields[FieldName.agentDisplayName] = request.agentDisplayName.map { .value(.string($0)) }

        var deviceFields = tokenFields.merging([
            FieldName.platform: .value(.string(request.platform.rawValue)),
            FieldName.createdAt: .valueIfAbsent(timestamp),
            FieldName.updatedAt: .value(timestamp),
        ]) { current, _ in current }
        deviceFields[FieldName.appVersion] = request.appVersion.map { .value(.string($0)) }
        deviceFields[FieldName.bundleID] = request.bundleID.map { .value(.string($0)) }

        let serverPath = NamespacePaths.server(serverKey)
        let agentPath = NamespacePaths.agent(agentKey, of: serverKey)
        let admission = self.admission
        let committed = try await store.runTransaction { [agentFields, deviceFields] transaction in
            // The three documents in one read: which of them exist decides the caps and
            // whether the server is created.
            let read = try transaction.documents(at: [serverPath, agentPath, devicePath])
            let existing = Set(read.map(\.path))
            let storedDevice = read.first { $0.path == devicePath }
            var deviceFields = deviceFields
            deviceFields.merge(Self.environmentFields(request, stored: storedDevice)) { _, environment in environment }
            try Self.checkCaps(
                admission,
                agent: existing.contains(agentPath) ? nil : agentPath,
                device: existing.contains(devicePath) ? nil : devicePath,
                in: transaction)
            // After the last read: the update may run again from the start, and a
            // namespace admitted must be admitted once.
            var writes = try ServerPresence.creation(
                of: serverKey, exists: existing.contains(serverPath), at: now, admitNew: admitNewNamespace)
            let deviceWrite = writes.count + 1
            writes += [.set(agentPath, agentFields), .set(devicePath, deviceFields)]
            return (writes, (deviceWrite: deviceWrite, tokensChanged: !Self.holds(request, storedDevice)))
        }
        if committed.outcome.tokensChanged {
            try await rotateSiblings(
                of: devicePath, to: request, serverKey: serverKey, tokenFields: tokenFields, timestamp: timestamp)
        }
        return RegisterSubscriptionAnswer(
            serverKey: serverKey.hex,
            agentKey: agentKey.hex,
            installationID: request.installationID,
            created: !committed.results[committed.outcome.deviceWrite].existed
        )
    }

    /// Devices a rotation writes in one transaction.
    public static let rotationBatch = 25

    /// Devices a rotation reads at a time, outside the store's write.
    static let rotationPage = 500

    /// Whether `device` (`nil`: not stored) holds exactly the request's tokens, and
    /// its payload keys and push-to-start token when it gives them.
    private static func holds(_ request: RegisterSubscriptionRequest, _ device: Document?) -> Bool {
        guard let device else { return false }
        return request.addresses.allSatisfy { device.string($0.documentField) == $0.address }
            && request.payloadKeys.map { device.fields[FieldName.payloadKeys] == PayloadSealing.field($0) } ?? true
            && request.activityStartToken.map { device.string(FieldName.activityStartToken) == $0 } ?? true
            && request.decisionKey.map { device.string(FieldName.decisionKey) == $0.text } ?? true
            && request.deviceName.map { device.string(FieldName.deviceName) == $0 } ?? true
            && request.quietHours.map { device.fields[FieldName.quietHours] == $0?.stored } ?? true
    }

    /// The device's environment of each service that has them: the one the
    /// registration states (no longer learned); without one, what was stored stays
    /// while the service's address does (a learned environment saves a refusal on
    /// every push), and goes with it.
    static func environmentFields(_ request: RegisterSubscriptionRequest, stored: Document?) -> [String: FieldValue] {
        var fields: [String: FieldValue] = [:]
        for address in request.addresses {
            guard let environment = address.environment else { continue }
            if let stated = environment.stated {
                fields[environment.documentField] = .value(.string(stated.rawValue))
                fields[environment.learnedField] = .delete
            } else if let stored, stored.string(address.documentField) != address.address {
                fields[environment.documentField] = .delete
                fields[environment.learnedField] = .delete
            }
        }
        return fields
    }

    /// Refuses a new device of a full agent, or a new agent of a full server; `nil`:
    /// the device (or agent) is stored already, and always registers again.
    private static func checkCaps(
        _ admission: AdmissionPolicy, agent: DocumentPath?, device: DocumentPath?,
        in transaction: any DocumentTransaction
    ) throws {
        guard let device else { return }
        let devices = try transaction.count(in: device.parent, upTo: admission.maxDevicesPerAgent)
        if devices >= admission.maxDevicesPerAgent {
            throw FunctionError(
                .limitReached,
                "this agent has \(devices) devices, the most this gateway allows (PUSHGATE_MAX_DEVICES_PER_AGENT); unregister unused ones first",
                field: "installation_id")
        }
        guard let agent else { return }
        let agents = try transaction.count(in: agent.parent, upTo: admission.maxAgentsPerServer)
        if agents >= admission.maxAgentsPerServer {
            throw FunctionError(
                .limitReached,
                "this server has \(agents) agents, the most this gateway allows (PUSHGATE_MAX_AGENTS_PER_SERVER); unregister unused ones first",
                field: "cwd")
        }
    }

    /// Gives the installation's devices under the server's other agents the
    /// request's tokens, ``rotationBatch`` at a time, each batch read outside the
    /// store's write and written in a transaction of its own that first checks the
    /// registered device still holds these tokens (else a later registration
    /// rotates its own, and this one stops). `exists` keeps a device deleted
    /// meanwhile deleted.
    private func rotateSiblings(
        of devicePath: DocumentPath,
        to request: RegisterSubscriptionRequest,
        serverKey: ServerKey,
        tokenFields: [String: FieldValue],
        timestamp: JSONValue
    ) async throws {
        var after: DocumentPath?
        // Most installations follow a few agents: the first page is one batch, small
        // enough for a store's quick read (a new device pays only that); the rest
        // come ``rotationPage`` at a time.
        var limit = Self.rotationBatch
        while true {
            let page = try await store.documents(
                inGroup: NamespacePaths.devices, under: NamespacePaths.server(serverKey),
                where: .documentID(request.installationID), after: after, limit: limit)
            guard let last = page.last else { return }
            after = last.path
            let lastPage = page.count < limit
            limit = Self.rotationPage
            let writes: [DocumentWrite] = page.compactMap { device in
                guard device.path != devicePath, !Self.holds(request, device) else { return nil }
                var fields = tokenFields.merging(Self.environmentFields(request, stored: device)) { _, environment in
                    environment
                }
                fields[FieldName.updatedAt] = .value(timestamp)
                return .set(device.path, fields, if: .exists)
            }
            for start in stride(from: 0, to: writes.count, by: Self.rotationBatch) {
                let batch = Array(writes[start..<min(start + Self.rotationBatch, writes.count)])
                let current = try await StoreWriteLane.$current.withValue(.bulk) {
                    try await store.runTransaction { transaction in
                        let holds = Self.holds(request, try transaction.documents(at: [devicePath]).first)
                        return (holds ? batch : [], holds)
                    }
                }
                guard current.outcome else { return }
            }
            if lastPage { return }
        }
    }
}
