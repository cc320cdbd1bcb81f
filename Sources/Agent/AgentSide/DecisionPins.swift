import Foundation
import PushgateCore
import PushgateSealing

/// The phones paired on this machine (issue 82): for each installation, the decision
/// key `pushgate pair` checked against a code only this machine and the phone knew,
/// with the device's name and when it was paired. Only these keys can say yes: not a
/// phone that merely registered (anyone holding the push secret can register one),
/// not a key a gateway names. A key changes only by pairing again.
///
/// The file is JSON, `{"pins": {"<installation_id>": "<decision key>"}, "devices":
/// {"<installation_id>": {"device_name", "paired_at"}}}`: the `pins` object is the
/// form earlier versions wrote (and trusted on first use), so their pins stay valid
/// and they read this file still.
public struct DecisionPins: Sendable, Equatable {
    /// One paired phone.
    public struct Pin: Sendable, Equatable {
        public let key: DecisionKey
        public let deviceName: String?
        /// When it was paired (RFC 3339); `nil` for a pin kept from before pairing.
        public let pairedAt: String?

        public init(key: DecisionKey, deviceName: String?, pairedAt: String?) {
            self.key = key
            self.deviceName = deviceName
            self.pairedAt = pairedAt
        }
    }

    /// Why the pins cannot be read: then no decision is obeyed.
    public struct Unreadable: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// The largest pin file read: a few thousand phones.
    public static let maxFileBytes = 1 << 20

    public private(set) var phones: [String: Pin]

    public init(phones: [String: Pin] = [:]) {
        self.phones = phones
    }

    /// The pins in a pin file's bytes.
    public init(file bytes: [UInt8]) throws(Unreadable) {
        guard bytes.count <= Self.maxFileBytes else {
            throw Unreadable(description: "it is over \(Self.maxFileBytes) bytes")
        }
        guard let object = try? JSONValue.parse(bytes).objectValue, let pins = object["pins"]?.objectValue else {
            throw Unreadable(description: #"it is not {"pins": {…}} JSON"#)
        }
        let devices = object["devices"]?.objectValue ?? [:]
        var phones: [String: Pin] = [:]
        for (installationID, value) in pins {
            guard let text = value.stringValue, let key = DecisionKey(text) else {
                throw Unreadable(
                    description:
                        "the pin of \(InvisibleCharacters.escaped(String(installationID.prefix(128)))) is no decision key"
                )
            }
            let device = devices[installationID]?.objectValue
            phones[installationID] = Pin(
                key: key, deviceName: device?["device_name"]?.stringValue, pairedAt: device?["paired_at"]?.stringValue)
        }
        self.phones = phones
    }

    public var isEmpty: Bool { phones.isEmpty }

    /// The installation's paired phone; `nil` when it is not paired here.
    public subscript(installationID: String) -> Pin? { phones[installationID] }

    /// Pairs (or pairs again) `installationID` with `key`.
    public mutating func pin(_ key: DecisionKey, of installationID: String, deviceName: String?, at date: Date) {
        phones[installationID] = Pin(key: key, deviceName: deviceName, pairedAt: RFC3339.format(date))
    }

    /// Unpairs `installationID`; whether it was paired.
    @discardableResult
    public mutating func remove(_ installationID: String) -> Bool {
        phones.removeValue(forKey: installationID) != nil
    }

    /// The file's bytes.
    public var file: [UInt8] {
        var devices: [String: JSONValue] = [:]
        for (installationID, pin) in phones where pin.deviceName != nil || pin.pairedAt != nil {
            var device: [String: JSONValue] = [:]
            device["device_name"] = pin.deviceName.map(JSONValue.string)
            device["paired_at"] = pin.pairedAt.map(JSONValue.string)
            devices[installationID] = .object(device)
        }
        let object: JSONValue = [
            "pins": .object(phones.mapValues { .string($0.key.text) }), "devices": .object(devices),
        ]
        return (try? object.encodedBytes()) ?? []
    }
}
