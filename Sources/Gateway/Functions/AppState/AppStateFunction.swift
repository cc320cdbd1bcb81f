import Foundation
import PushgateCore

/// `appState` (issue 75): the app says which agent's chat it shows in the foreground
/// (`foreground_cwd`), or none. For the next ``HoldBack/foregroundValidity`` (60 s;
/// the app says it again while it does) that agent's replies and other events that
/// can wait reach this installation as a silent update — the app shows them in the
/// chat — instead of a banner; Web Push, which allows no push that shows nothing,
/// gets none. Approvals and questions always ring.
///
/// Kept on the installation's device document under that agent
/// (``FieldName/foregroundUntil``), where a trigger reads its devices anyway; the
/// mark under any other agent is removed in the same transaction. An app's call: it
/// does not count as the agent side's presence.
public struct AppStateFunction: Sendable {
    private let store: any DocumentStore
    private let now: @Sendable () -> Date

    public init(store: any DocumentStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.now = now
    }

    /// The answer: the chat now shown, and until when the word holds.
    public struct Answer: Sendable, Hashable, Encodable {
        public let ok = true
        public let installationID: String
        public let foregroundCWD: String?
        public let foregroundUntil: String?

        enum CodingKeys: String, CodingKey {
            case ok
            case installationID = "installation_id"
            case foregroundCWD = "foreground_cwd"
            case foregroundUntil = "foreground_until"
        }
    }

    /// Why the transaction wrote nothing.
    private enum Refusal: Sendable {
        case unknownInstallation, notFollowing
    }

    public func callAsFunction(secret: PushSecret, _ request: AppStateRequest) async throws -> Answer {
        let serverKey = secret.serverKey
        let installationID = request.installationID
        let shown = try request.foregroundCWD.map { cwd in
            try NamespacePaths.device(installationID, of: AgentKey(cwd: cwd), of: serverKey)
        }
        let at = now()
        let until = at.addingTimeInterval(HoldBack.foregroundValidity)
        let (_, refusal) = try await store.runTransaction { transaction -> ([DocumentWrite], Refusal?) in
            let devices = try transaction.documents(
                inGroup: NamespacePaths.devices, under: NamespacePaths.server(serverKey),
                where: .documentID(installationID))
            guard !devices.isEmpty else { return ([], .unknownInstallation) }
            if let shown, !devices.contains(where: { $0.path == shown }) { return ([], .notFollowing) }
            let writes: [DocumentWrite] = devices.compactMap { device in
                if device.path == shown {
                    return .set(
                        device.path, [FieldName.foregroundUntil: .value(.string(RFC3339.format(until)))], if: .exists)
                }
                guard device.fields[FieldName.foregroundUntil] != nil else { return nil }
                return .set(device.path, [FieldName.foregroundUntil: .delete], if: .exists)
            }
            return (writes, nil)
        }
        switch refusal {
        case .unknownInstallation?:
            throw FunctionError(
                .notFound, "no installation '\(installationID)' is registered under this server",
                field: "installation_id")
        case .notFollowing?:
            throw FunctionError(
                .notFound, "this installation does not follow that cwd: register the subscription first",
                field: "foreground_cwd")
        case nil:
            return Answer(
                installationID: installationID, foregroundCWD: request.foregroundCWD,
                foregroundUntil: shown.map { _ in RFC3339.format(until) })
        }
    }
}
