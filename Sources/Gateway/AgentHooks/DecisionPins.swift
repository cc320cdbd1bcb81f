import Foundation
import PushgateCore
import PushgateSealing

/// The decision keys a hook has seen decide, one per installation, pinned the first
/// time each decided (issue 73): the hook trusts a phone's key once, then only that
/// key, so that a gateway that lies — or anyone holding the push secret, who can
/// register a device — cannot swap in a key of its own and allow a command. A phone
/// whose key really changed (the app reinstalled) is let in again by removing its
/// line from the file.
///
/// The file is JSON, `{"pins": {"<installation_id>": "<decision key>"}}`, written
/// whole (a new file renamed over the old) with mode 0600.
public struct DecisionPins: Sendable, Equatable {
    /// Why the pins cannot be read: then no decision is obeyed.
    public struct Unreadable: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// The largest pin file read: a few hundred phones.
    public static let maxFileBytes = 1 << 20

    public private(set) var keys: [String: String]

    public init(keys: [String: String] = [:]) {
        self.keys = keys
    }

    /// The pins in `text`, a pin file's bytes.
    public init(file bytes: [UInt8]) throws(Unreadable) {
        guard bytes.count <= Self.maxFileBytes else {
            throw Unreadable(description: "it is over \(Self.maxFileBytes) bytes")
        }
        guard let object = try? JSONValue.parse(bytes).objectValue, let pins = object["pins"]?.objectValue else {
            throw Unreadable(description: #"it is not {"pins": {…}} JSON"#)
        }
        var keys: [String: String] = [:]
        for (installationID, key) in pins {
            guard let text = key.stringValue, let key = DecisionKey(text) else {
                throw Unreadable(
                    description: "the pin of \(InvisibleCharacters.escaped(installationID)) is no decision key")
            }
            keys[installationID] = key.text
        }
        self.keys = keys
    }

    /// What `installationID` may decide with: its pinned key, or `key` when it has
    /// none yet (which is then to be pinned); `nil` when its pin is another key.
    public func admits(_ key: DecisionKey, of installationID: String) -> Bool {
        keys[installationID].map { $0 == key.text } ?? true
    }

    /// Whether `installationID` has a pin.
    public func isPinned(_ installationID: String) -> Bool { keys[installationID] != nil }

    public mutating func pin(_ key: DecisionKey, of installationID: String) {
        keys[installationID] = key.text
    }

    /// The file's bytes.
    public var file: [UInt8] {
        (try? JSONValue.object(["pins": .object(keys.mapValues(JSONValue.string))]).encodedBytes()) ?? []
    }
}
