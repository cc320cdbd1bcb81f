import Foundation
import PushgateLiveActivity

extension AgentRunContentState {
    /// As a push carries it: the app's own `Codable` encoding (its default keys), so
    /// that what the gateway writes is what `ContentState` decodes, by construction.
    public var json: JSONValue {
        get throws { try JSONValue.parse(Array(try JSONEncoder().encode(self))) }
    }

    /// A state as the outbox stored it; `nil` for another shape.
    public init?(json: JSONValue) {
        guard let data = try? json.encodedData(), let state = try? JSONDecoder().decode(Self.self, from: data)
        else { return nil }
        self = state
    }
}
