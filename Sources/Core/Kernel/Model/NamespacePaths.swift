/// Where Pushgate's documents live:
/// `servers/{serverKey}/agents/{agentKey}/devices/{installationId}`
/// (`store/LAYOUT.md` lists their fields).
public enum NamespacePaths {
    public static let servers = "servers"
    public static let agents = "agents"
    public static let devices = "devices"
    public static let events = "events"
    public static let lastEvents = "lastEvents"
    public static let sources = "sources"
    public static let installations = "installations"
    public static let pairings = "pairings"
    public static let messages = "messages"

    /// `servers/{serverKey}`
    public static func server(_ server: ServerKey) -> DocumentPath {
        // Keys are 64 hex characters: always valid segments.
        DocumentPath(trustedSegments: [servers, server.hex])
    }

    /// `servers/{serverKey}/agents/{agentKey}`
    public static func agent(_ agent: AgentKey, of server: ServerKey) -> DocumentPath {
        DocumentPath(trustedSegments: [servers, server.hex, agents, agent.hex])
    }

    /// `servers/{serverKey}/agents/{agentKey}/devices`
    public static func devices(of agent: AgentKey, of server: ServerKey) -> CollectionPath {
        CollectionPath(trustedSegments: [servers, server.hex, agents, agent.hex, devices])
    }

    /// `servers/{serverKey}/agents/{agentKey}/lastEvents/{type}` (or
    /// `{type}-{sha256(key)}` for an ordering key, such as a reply's conversation):
    /// the last event of a type notified for an agent (the ordering guard);
    /// `servers/{serverKey}/lastEvents/…` for an event to the whole server (`agent` `nil`).
    public static func eventState(
        _ type: EventType, key: String? = nil, of agent: AgentKey?, of server: ServerKey
    ) -> DocumentPath {
        // Type names are [a-z][a-z0-9_]*, hashes hex: always valid segments, never the same.
        let id = key.map { "\(type.rawValue)-\(SHA256Hex.digest(of: $0))" } ?? type.rawValue
        guard let agent else { return DocumentPath(trustedSegments: [servers, server.hex, lastEvents, id]) }
        return DocumentPath(trustedSegments: [servers, server.hex, agents, agent.hex, lastEvents, id])
    }

    /// `servers/{serverKey}/events/{sha256(eventId)}`: an event that can be resolved
    /// (an approval): its reminders and the badges it counted. Hashed because an event
    /// id may hold any character.
    public static func event(_ eventID: String, of server: ServerKey) -> DocumentPath {
        DocumentPath(trustedSegments: [servers, server.hex, events, SHA256Hex.digest(of: eventID)])
    }

    /// `servers/{serverKey}/agents/{agentKey}/messages`
    public static func messages(of agent: AgentKey, of server: ServerKey) -> CollectionPath {
        CollectionPath(trustedSegments: [servers, server.hex, agents, agent.hex, messages])
    }

    /// `servers/{serverKey}/agents/{agentKey}/messages/{sha256(messageId)}`: words a
    /// paired phone sent the agent (issue 84), kept until the agent's side reads them.
    /// Hashed because the phone made the id.
    public static func message(_ messageID: String, of agent: AgentKey, of server: ServerKey) -> DocumentPath {
        DocumentPath(trustedSegments: [
            servers, server.hex, agents, agent.hex, messages, SHA256Hex.digest(of: messageID),
        ])
    }

    /// `servers/{serverKey}/pairings`
    public static func pairings(of server: ServerKey) -> CollectionPath {
        CollectionPath(trustedSegments: [servers, server.hex, pairings])
    }

    /// `servers/{serverKey}/pairings/{pairingId}`: a pairing `pushgate pair` opened
    /// (issue 82) and the phones' completions of it. `nil` for an id the gateway
    /// cannot have made (32 lower-case hex digits).
    public static func pairing(_ pairingID: String, of server: ServerKey) -> DocumentPath? {
        guard pairingID.utf8.count == 32, Hex.bytes(pairingID) != nil else { return nil }
        return DocumentPath(trustedSegments: [servers, server.hex, pairings, pairingID])
    }

    /// `servers/{serverKey}/sources`
    public static func sources(of server: ServerKey) -> CollectionPath {
        CollectionPath(trustedSegments: [servers, server.hex, sources])
    }

    /// `servers/{serverKey}/sources/{sha256(source)}`: one machine or MCP client of
    /// the agent side, as its heartbeat names it. Hashed because a name may hold any
    /// character.
    public static func source(_ name: String, of server: ServerKey) -> DocumentPath {
        DocumentPath(trustedSegments: [servers, server.hex, sources, SHA256Hex.digest(of: name)])
    }

    /// `servers/{serverKey}/installations/{installationId}`: what one installation
    /// carries across every agent of the server (its badge count). The id was
    /// checked when the installation registered.
    public static func installation(_ installationID: String, serverKeyHex: String) -> DocumentPath {
        DocumentPath(trustedSegments: [servers, serverKeyHex, installations, installationID])
    }

    /// The device a stored delivery names: keys as the outbox keeps them (hex), and
    /// an installation id that was checked when it registered.
    public static func device(_ installationID: String, agentKeyHex: String, serverKeyHex: String) -> DocumentPath {
        DocumentPath(trustedSegments: [servers, serverKeyHex, agents, agentKeyHex, devices, installationID])
    }

    /// `servers/{serverKey}/agents/{agentKey}/devices/{installationId}`
    public static func device(
        _ installationID: String,
        of agent: AgentKey,
        of server: ServerKey
    ) throws(DocumentStoreError) -> DocumentPath {
        try devices(of: agent, of: server).document(installationID)
    }
}
