import Foundation

/// A ``SecureStore`` in one JSON file of mode 0600 (its folder made 0700 when
/// missing): the store on Linux, where there is no Keychain. Each change replaces the
/// file whole (``PrivateFile``); each read reads it again, so two processes sharing
/// it see each other's changes.
public final class FileStore: SecureStore {
    public let path: String
    private let lock = NSLock()

    public init(path: String) {
        self.path = path
    }

    public struct Unreadable: Error, CustomStringConvertible {
        public let description: String
    }

    public func string(forKey key: String) throws -> String? {
        try lock.withLock { try read()[key] }
    }

    public func set(_ value: String, forKey key: String) throws {
        try lock.withLock {
            var values = try read()
            values[key] = value
            try write(values)
        }
    }

    public func removeValue(forKey key: String) throws {
        try lock.withLock {
            var values = try read()
            guard values.removeValue(forKey: key) != nil else { return }
            try write(values)
        }
    }

    public func keys() throws -> [String] {
        try lock.withLock { Array(try read().keys) }
    }

    private func read() throws -> [String: String] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Unreadable(description: "cannot read \(path)")
        }
        guard let values = try? JSONDecoder().decode([String: String].self, from: data) else {
            throw Unreadable(description: "\(path) is not a store of this client (a JSON object of strings)")
        }
        return values
    }

    private func write(_ values: [String: String]) throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try PrivateFile.write(try encoder.encode(values), to: path)
    }
}
