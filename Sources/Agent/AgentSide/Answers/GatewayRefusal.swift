/// Every function's error answer: `{"error": {"status", "message", "reason"?, …}}`.
public struct GatewayRefusal: Sendable, Equatable, Decodable {
    public struct Detail: Sendable, Equatable, Decodable {
        public let status: String
        public let message: String
        public let reason: String?
        /// `already_decided`: the decision that came first.
        public let decision: String?
        /// `already_resolved`: the resolution that came first.
        public let resolution: String?
    }

    public let error: Detail
}
