import PushgateCore

/// A page of the agents one installation follows under one server — its device
/// documents with their agents' documents — read in two queries however many
/// agents the page holds. `/subscriptions` and `/diagnostics?installation_id=` list it.
struct InstallationPage {
    struct Entry {
        let agentKey: AgentKey
        let device: Document
        /// `nil` when the agent document is gone (a device left behind).
        let agent: Document?
    }

    /// In agent-key order.
    let entries: [Entry]
    let nextPageToken: String?

    static func read(
        _ installationID: String, of serverKey: ServerKey, page: PageRequest, in store: any DocumentStore
    ) async throws -> InstallationPage {
        // servers/{s}/agents/{a}/devices/{i}: every path has the same shape and the same
        // id, so path order is agent-key order, and the previous page's last device is
        // where this one starts.
        let after = page.afterAgentKey.map {
            NamespacePaths.device(installationID, agentKeyHex: $0, serverKeyHex: serverKey.hex)
        }
        let read = try await store.documents(
            inGroup: NamespacePaths.devices, under: NamespacePaths.server(serverKey),
            where: .documentID(installationID),
            after: after, limit: page.readLimit)
        let (devices, nextPageToken) = page.cut(read) { $0.path.segments[3] }
        let agentPaths = devices.map { NamespacePaths.agent(AgentKey(hex: $0.path.segments[3]), of: serverKey) }
        let agents = Dictionary(
            try await store.documents(at: agentPaths).map { ($0.path.documentID, $0) },
            uniquingKeysWith: { first, _ in first })
        let entries = devices.map { device in
            let agentKey = device.path.segments[3]
            return Entry(agentKey: AgentKey(hex: agentKey), device: device, agent: agents[agentKey])
        }
        return InstallationPage(entries: entries, nextPageToken: nextPageToken)
    }
}
