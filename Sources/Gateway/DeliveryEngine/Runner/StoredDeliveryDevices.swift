import PushgateCore

/// ``DeliveryDevices`` over the document store: the installations' badge counts,
/// the device documents a finding names, and one commit for a chunk's findings.
struct StoredDeliveryDevices: DeliveryDevices {
    let store: any DocumentStore
    /// Where a service with environments keeps a learned one on the device.
    let formats: PushAddressFormats

    func badges(of installationIDs: [String], serverKeyHex: String) async throws -> [String: Int] {
        let installations = try await store.documents(
            at: installationIDs.map { NamespacePaths.installation($0, serverKeyHex: serverKeyHex) })
        var counts: [String: Int] = [:]
        for installation in installations {
            counts[installation.path.documentID] = installation.fields[FieldName.pendingApprovals]?.arrayValue?.count
        }
        return counts
    }

    func apply(_ findings: [DeviceFinding], of notification: OutboxNotification) async throws -> [Bool] {
        guard !findings.isEmpty else { return [] }
        var writesOf: [[Int]] = []  // finding → indexes of its writes
        var writes: [DocumentWrite] = []
        for finding in findings {
            let start = writes.count
            switch finding {
            case .deadToken(let token, let installationID):
                for device in try await devices(holding: token, of: installationID, of: notification) {
                    writes.append(.delete(device, if: Self.stillHolds(token)))
                }
            case .learnedEnvironment(let token, let environment):
                guard let fields = formats.format(named: token.kind.rawValue)?.environments else { break }
                // Every registration of the token under the server: it is the same phone.
                for device in try await devices(holding: token, serverKeyHex: notification.serverKey) {
                    writes.append(
                        .set(
                            device,
                            [
                                fields.documentField: .value(.string(environment.rawValue)),
                                fields.learnedField: .value(.bool(true)),
                            ], if: Self.stillHolds(token)))
                }
            case .deadActivityToken(let token, let installationID):
                writes += try await activityTokenRemovals(token, of: installationID, of: notification)
            case .activitySent(let token, let installationID, let timestamp):
                writes.append(
                    .set(
                        NamespacePaths.device(
                            installationID, agentKeyHex: notification.agentKey, serverKeyHex: notification.serverKey),
                        [FieldName.activitySentAt: .value(.number(Double(timestamp)))],
                        if: .fieldEquals(FieldName.activityToken, .string(token.value))))
            }
            writesOf.append(Array(start..<writes.count))
        }
        let applied = writes.isEmpty ? [] : try await store.commit(writes).map(\.applied)
        return writesOf.map { indexes in indexes.contains { applied[$0] } }
    }

    func activities(of installationIDs: [String], of notification: OutboxNotification) async throws
        -> [String: RunningActivity]
    {
        let documents = try await store.documents(
            at: installationIDs.map {
                NamespacePaths.device($0, agentKeyHex: notification.agentKey, serverKeyHex: notification.serverKey)
            })
        var running: [String: RunningActivity] = [:]
        for device in documents {
            let sent: Int? =
                if case .number(let seconds)? = device.fields[FieldName.activitySentAt] { Int(exactly: seconds) } else {
                    nil
                }
            running[device.path.documentID] = RunningActivity(
                token: device.string(FieldName.activityToken), lastSentTimestamp: sent)
        }
        return running
    }

    /// A dead activity token's removals: an activity's from the delivery's device (it
    /// stays subscribed), a push-to-start token from every device of the server that
    /// holds it (it is the installation's, under every agent).
    private func activityTokenRemovals(
        _ token: DeviceToken, of installationID: String, of notification: OutboxNotification
    ) async throws -> [DocumentWrite] {
        let device = NamespacePaths.device(
            installationID, agentKeyHex: notification.agentKey, serverKeyHex: notification.serverKey)
        let held: FieldFilter = .fieldEquals(FieldName.activityStartToken, .string(token.value))
        let starts = try await store.documents(
            inGroup: NamespacePaths.devices, under: NamespacePaths.server(ServerKey(hex: notification.serverKey)),
            where: held)
        return [
            .set(
                device,
                [
                    FieldName.activityToken: .delete, FieldName.activityRunID: .delete,
                    FieldName.activityRegisteredAt: .delete, FieldName.activitySentAt: .delete,
                ], if: .fieldEquals(FieldName.activityToken, .string(token.value)))
        ]
            + starts.map { start in
                .set(
                    start.path, [FieldName.activityStartToken: .delete],
                    if: .fieldEquals(FieldName.activityStartToken, .string(token.value)))
            }
    }

    /// The device documents a dead token is deleted from: the delivery's own, under
    /// the notification's agent; for a server-wide notification (the device may
    /// follow any agent), every device of the server that holds the token.
    private func devices(
        holding token: DeviceToken, of installationID: String, of notification: OutboxNotification
    ) async throws -> [DocumentPath] {
        guard notification.isServerWide else {
            return [
                NamespacePaths.device(
                    installationID, agentKeyHex: notification.agentKey, serverKeyHex: notification.serverKey)
            ]
        }
        return try await devices(holding: token, serverKeyHex: notification.serverKey)
    }

    /// Every device document of the server that holds `token`.
    private func devices(holding token: DeviceToken, serverKeyHex: String) async throws -> [DocumentPath] {
        try await store.documents(
            inGroup: NamespacePaths.devices, under: NamespacePaths.server(ServerKey(hex: serverKeyHex)),
            where: Self.holds(token)
        ).map(\.path)
    }

    /// The devices holding `token`.
    private static func holds(_ token: DeviceToken) -> FieldFilter {
        .fieldEquals(token.fieldName, .string(token.value))
    }

    /// The device still holds `token` when written (not another registered meanwhile).
    private static func stillHolds(_ token: DeviceToken) -> DocumentWrite.Precondition {
        .fieldEquals(token.fieldName, .string(token.value))
    }
}
