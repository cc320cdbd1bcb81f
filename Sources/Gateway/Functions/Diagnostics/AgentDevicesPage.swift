import PushgateCore
import PushgateSealing

/// `/diagnostics?agent_key=…`: a page of one agent's devices (or its one device,
/// with `installation_id`), by installation id, each with how the agent's last
/// notification went for it (absent when it had no delivery of it). Each device's
/// last delivery is read by its key: a page costs one indexed read per device.
enum AgentDevicesPage {
    static func read(
        _ page: PageRequest, agentKey: AgentKey, installationID: String?, serverKey: ServerKey,
        store: any DocumentStore, outbox: any OutboxQueries, formats: PushAddressFormats
    ) async throws -> ([JSONValue], String?) {
        let devices: [Document]
        let nextPageToken: String?
        if let installationID {
            let path = try NamespacePaths.device(installationID, of: agentKey, of: serverKey)
            (devices, nextPageToken) = (try await store.document(at: path).map { [$0] } ?? [], nil)
        } else {
            let read = try await store.documents(
                in: NamespacePaths.devices(of: agentKey, of: serverKey), after: page.after, limit: page.readLimit)
            (devices, nextPageToken) = page.cut(read) { $0.path.documentID }
        }
        let activity = try await outbox.activities(serverKey: serverKey.hex, agentKeys: [agentKey.hex])[agentKey.hex]
        var entries: [JSONValue] = []
        entries.reserveCapacity(devices.count)
        for device in devices {
            var entry = describe(device, formats: formats)
            if let notificationID = activity?.lastNotificationID,
                let status = try await outbox.statuses(of: [notificationID], installationID: device.path.documentID)[
                    notificationID]
            {
                entry["last_outcome"] = .string(status.state.rawValue)
                entry["last_reason"] = status.lastReason.map(JSONValue.string)
                entry["last_notification_at"] = activity?.lastNotificationAt.map { .string(RFC3339.format($0)) }
            }
            entries.append(.object(entry))
        }
        return (entries, nextPageToken)
    }

    /// What the device document says: never its whole token, only the kind and a
    /// preview of the one pushes go to (``PushAddressFormat/preview``: its first 8
    /// characters, a Web Push endpoint's origin), whether its pushes are sealed,
    /// whether its phone can decide approvals and its key's fingerprint, its name.
    static func describe(_ device: Document, formats: PushAddressFormats) -> [String: JSONValue] {
        var entry: [String: JSONValue] = ["installation_id": .string(device.path.documentID)]
        let record = DeviceRecord(document: device, formats: formats)
        if let token = record.deliveryToken {
            entry["token_kind"] = .string(token.kind.rawValue)
            entry["token_preview"] = .string(formats.preview(of: token))
        }
        // Its pushes go out sealed for the keys it registered (never the keys themselves).
        if case .sealed? = record.route.sealing { entry["sealed"] = .bool(true) }
        // Its phone can answer approvals (a decision key; never the key itself, but its
        // fingerprint, which the phone shows and `pushgate pair` prints, to compare).
        if record.route.decides { entry["can_decide"] = .bool(true) }
        if let key = device.string(FieldName.decisionKey).flatMap(DecisionKey.init) {
            entry["decision_key_fingerprint"] = .string(key.fingerprint)
        }
        entry["device_name"] = device.fields[FieldName.deviceName]
        for (name, field) in [
            ("platform", FieldName.platform), ("app_version", FieldName.appVersion), ("bundle_id", FieldName.bundleID),
            ("created_at", FieldName.createdAt),
            ("updated_at", FieldName.updatedAt),
        ] {
            entry[name] = device.fields[field]
        }
        // Each service's environment under its registration field (`apns_environment`).
        for environments in formats.all.compactMap(\.environments) {
            entry[environments.registrationField] = device.fields[environments.documentField]
            if device.fields[environments.learnedField] == .bool(true) {
                entry[environments.registrationField + "_learned"] = .bool(true)
            }
        }
        return entry
    }
}
