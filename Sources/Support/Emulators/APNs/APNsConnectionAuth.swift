import NIOConcurrencyHelpers

/// The provider tokens one connection has pushed with, for the checks APNs makes per
/// connection: a token of another team than the connection's first is
/// `403 UnrelatedKeyIdInToken`, and a key's token renewed less than 20 minutes
/// (by `iat`) after the one before is `429 TooManyProviderTokenUpdates`.
///
/// Apple's words leave open whether two keys of one team are "related"; the emulator
/// takes them to be, so apps of one team may share a connection.
final class APNsConnectionAuth: Sendable {
    /// Apple's floor between two tokens of a key (push-protocols.md, section 2).
    static let minimumRenewalSeconds = 20.0 * 60

    private struct State {
        var teamID: String?
        /// The newest `iat` seen per key id.
        var issuedAt: [String: Double] = [:]
    }

    private let state = NIOLockedValueBox(State())

    /// The refusal for a verified token of `keyID` and `teamID` issued at `issuedAt`,
    /// or `nil` when the connection may push with it.
    func check(keyID: String, teamID: String, issuedAt: Double) -> APNsRequestChecker.Verdict? {
        state.withLockedValue { state in
            if let known = state.teamID, known != teamID {
                return APNsRequestChecker.Verdict(status: 403, reason: "UnrelatedKeyIdInToken")
            }
            state.teamID = teamID
            if let newest = state.issuedAt[keyID], issuedAt > newest {
                // A request signed before the renewal may still arrive: only a newer token counts.
                guard issuedAt - newest >= Self.minimumRenewalSeconds else {
                    return APNsRequestChecker.Verdict(status: 429, reason: "TooManyProviderTokenUpdates")
                }
            }
            state.issuedAt[keyID] = max(issuedAt, state.issuedAt[keyID] ?? issuedAt)
            return nil
        }
    }
}
