import Foundation
import PushgateClient
import PushgateSealing

/// Where the phones paired on this machine are kept (``DecisionPins``), and the one
/// way they change: read, changed and replaced under an exclusive lock (``FileLock``;
/// a re-read inside it), the new file 0600 renamed over the old — so that two
/// `pushgate pair` runs at once lose no pin, and a hook reading meanwhile sees the old
/// file or the new one, never half of one.
public struct PinFile: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// Where the pins are: `option` (`--pins`), else beside the secret file
    /// (`<secret file>.pins`), else `~/.config/pushgate/decision-pins.json`; made absolute.
    public init(option: String?, secretFile: String?, home: String) {
        if let option {
            path = Self.absolute(option)
        } else if let secretFile {
            path = Self.absolute(secretFile) + ".pins"
        } else {
            path = home + "/.config/pushgate/decision-pins.json"
        }
    }

    /// `path` from the working directory when relative.
    public static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// The pins; none when there is no file yet.
    public func read() throws(DecisionPins.Unreadable) -> DecisionPins {
        guard FileManager.default.fileExists(atPath: path) else { return DecisionPins() }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw DecisionPins.Unreadable(description: "cannot be read")
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: DecisionPins.maxFileBytes + 1)) ?? Data()
        return try DecisionPins(file: Array(data))
    }

    /// Why the pins could not be changed.
    public struct UpdateFailure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Changes the pins under the lock: `change` gets them as the file holds them now.
    @discardableResult
    public func update<Result>(_ change: (inout DecisionPins) throws -> Result) throws -> Result {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let lock: FileLock
        do {
            lock = try FileLock(beside: path)
        } catch {
            throw UpdateFailure(description: error.description)
        }
        var pins: DecisionPins
        do {
            pins = try read()
        } catch {
            throw UpdateFailure(description: "the pin file \(path) \(error): not changed")
        }
        let result = try change(&pins)
        do {
            try PrivateFile.write(Data(pins.file), to: path)
        } catch {
            throw UpdateFailure(description: error.description)
        }
        _ = consume lock
        return result
    }
}
