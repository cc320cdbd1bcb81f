import PushgateCore

/// One phone's completion of a pairing, as the gateway keeps it and hands it to
/// `awaitPairing` (issue 82): which installation, what it is called, the decision key
/// it registered, and its signature over the pairing and the code — which only the
/// agent's machine, holding the code, can check.
public struct PairingCompletion: Sendable, Hashable {
    /// The most completions a pairing keeps: a phone completing again replaces its own.
    public static let maxPerPairing = 10

    public let installationID: String
    public let deviceName: String?
    public let decisionKey: String
    public let signedAt: Int64
    public let signature: String

    /// As stored in the pairing's `completions`, and as `awaitPairing` answers it.
    var json: JSONValue {
        var object: [String: JSONValue] = [
            "installation_id": .string(installationID), "decision_key": .string(decisionKey),
            "signed_at": .number(Double(signedAt)), "signature": .string(signature),
        ]
        object["device_name"] = deviceName.map(JSONValue.string)
        return .object(object)
    }

    init(installationID: String, deviceName: String?, decisionKey: String, signedAt: Int64, signature: String) {
        self.installationID = installationID
        self.deviceName = deviceName
        self.decisionKey = decisionKey
        self.signedAt = signedAt
        self.signature = signature
    }

    /// A stored completion; `nil` for one of another form.
    init?(_ json: JSONValue) {
        guard let object = json.objectValue, let installationID = object["installation_id"]?.stringValue,
            let decisionKey = object["decision_key"]?.stringValue, case .number(let seconds)? = object["signed_at"],
            let signedAt = Int64(exactly: seconds), let signature = object["signature"]?.stringValue
        else { return nil }
        self.init(
            installationID: installationID, deviceName: object["device_name"]?.stringValue, decisionKey: decisionKey,
            signedAt: signedAt, signature: signature)
    }

    /// The completions a pairing's record keeps.
    static func all(in record: Document) -> [PairingCompletion] {
        (record.fields[FieldName.completions]?.arrayValue ?? []).compactMap(PairingCompletion.init)
    }
}
