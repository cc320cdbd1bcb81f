import PushgateCore
import PushgateSealing

extension DocumentLayout.FieldType {
    /// What a pairing's `completions` holds, in words.
    static let pairingCompletionsForm =
        #"an array of at most 10 {"installation_id", "device_name"?, "decision_key", "signed_at", "signature"}"#

    /// Whether `value` is a pairing's completions as `completePairing` stores them:
    /// at most 10, each installation once, its key a decision key, its signature 64 bytes.
    static func isPairingCompletions(_ value: JSONValue) -> Bool {
        guard let items = value.arrayValue, items.count <= 10 else { return false }
        var installations: Set<String> = []
        return items.allSatisfy { item in
            guard let object = item.objectValue,
                Set(object.keys).isSubset(of: [
                    "installation_id", "device_name", "decision_key", "signed_at", "signature",
                ]),
                let installation = object["installation_id"]?.stringValue,
                DocumentLayout.isInstallationID(installation), installations.insert(installation).inserted,
                object["decision_key"]?.stringValue.flatMap(DecisionKey.init) != nil,
                case .number(let seconds)? = object["signed_at"], seconds >= 0, Int64(exactly: seconds) != nil,
                let signature = object["signature"]?.stringValue, Base64URL.decode(signature)?.count == 64
            else { return false }
            guard let name = object["device_name"] else { return true }
            return name.stringValue.map { (1...64).contains($0.count) } ?? false
        }
    }
}
