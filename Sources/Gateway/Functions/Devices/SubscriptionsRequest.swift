import PushgateCore

/// A checked `GET /subscriptions` query: `?installation_id=…` with a page
/// (`page_size`, `page_token`), or `?token=…` (a push token of any service), whose every
/// match comes in one answer.
public struct SubscriptionsRequest: Sendable, Hashable {
    /// Whose subscriptions are asked for.
    public enum Subject: Sendable, Hashable {
        case installation(String)
        /// A token as given; an APNs token also matches in any case of its hex digits.
        case token(String)
    }

    public let subject: Subject
    public let page: PageRequest

    public init(
        installationID: String?, token: String? = nil, pageSize: String? = nil, pageToken: String? = nil
    ) throws(FunctionError) {
        switch (installationID, token) {
        case (let installationID?, nil):
            subject = .installation(try FieldRules.installationID(installationID))
            page = try PageRequest(size: pageSize, token: pageToken)
        case (nil, let token?):
            subject = .token(try FieldRules.token(token, field: "token"))
            // A token is one phone: its agents come in one answer (at most the
            // server's agents, and the installations that share the token).
            for (name, value) in [("page_size", pageSize), ("page_token", pageToken)] where value != nil {
                throw .invalidArgument(
                    "'\(name)' pages an installation's subscriptions; a token's come in one answer", field: name)
            }
            page = try PageRequest(size: nil, token: nil)
        case (nil, nil):
            throw .invalidArgument("'installation_id' or 'token' is required", field: "installation_id")
        case (_?, _?):
            throw .invalidArgument("give 'installation_id' or 'token', not both", field: "token")
        }
    }
}
