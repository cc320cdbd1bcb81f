import Foundation
import PushgateCore
import PushgateSealing

/// `completePairing` (issue 82): the phone signs the pairing and the code it was
/// shown with its registered decision key. The gateway cannot check that signature
/// (it never sees the code): it keeps the completion, with the installation's key and
/// name, for `pushgate pair` to check (`awaitPairing`). At most
/// ``PairingCompletion/maxPerPairing`` a pairing; a phone completing again replaces its own.
public struct CompletePairingFunction: Sendable {
    private let store: any DocumentStore
    private let waits: DecisionWaits
    private let now: @Sendable () -> Date

    public init(store: any DocumentStore, waits: DecisionWaits, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.waits = waits
        self.now = now
    }

    public struct Answer: Sendable, Hashable, Encodable {
        public let ok = true
    }

    public func callAsFunction(secret: PushSecret, _ request: CompletePairingRequest) async throws -> Answer {
        let serverKey = secret.serverKey
        guard let path = NamespacePaths.pairing(request.pairingID, of: serverKey) else { throw PairingRecord.unknown }
        let now = self.now()
        _ = try await PairingRecord.open(at: path, in: store, at: now)
        let devices = try await store.documents(
            inGroup: NamespacePaths.devices, under: NamespacePaths.server(serverKey),
            where: .documentIDIn([request.installationID]))
        guard let key = devices.lazy.compactMap({ $0.string(FieldName.decisionKey).flatMap(DecisionKey.init) }).first
        else {
            throw FunctionError(
                .permissionDenied, "this installation registered no decision_key under this server",
                field: "installation_id", reason: "no_decision_key")
        }
        guard abs(Double(request.signedAt) - now.timeIntervalSince1970) <= SignedDecision.maxClockSkew else {
            throw FunctionError(
                .invalidArgument,
                "'signed_at' is more than \(Int(SignedDecision.maxClockSkew)) s from the gateway's clock: sign again",
                field: "signed_at", reason: "stale")
        }
        let completion = PairingCompletion(
            installationID: request.installationID,
            deviceName: devices.lazy.compactMap { $0.string(FieldName.deviceName) }.first, decisionKey: key.text,
            signedAt: request.signedAt, signature: request.signature)
        let full = try await store.runTransaction { transaction in
            guard let record = try transaction.documents(at: [path]).first, PairingRecord.isOpen(record, at: now) else {
                throw PairingRecord.unknown
            }
            let others = PairingCompletion.all(in: record).filter { $0.installationID != request.installationID }
            guard others.count < PairingCompletion.maxPerPairing else { return ([], true) }
            let completions = JSONValue.array(others.map(\.json) + [completion.json])
            return ([.set(path, [FieldName.completions: .value(completions)], if: .exists)], false)
        }.outcome
        guard !full else {
            throw FunctionError(
                .limitReached,
                "this pairing holds \(PairingCompletion.maxPerPairing) completions, the most it keeps: start another",
                field: "pairing_id")
        }
        await waits.settled(at: path)
        return Answer()
    }
}
