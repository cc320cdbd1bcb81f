import Foundation
import PushgateCore

#if canImport(Glibc)
    // `struct stat` and its fields are declared, for this target, in the module of
    // Dispatch's C headers.
    import CDispatch
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The permission requests a `PermissionRequest` hook of this machine is waiting on
/// (issue 73), one file per request in a directory of the user's (0700): the
/// session, the event and the waiting hook's process id. Claude Code stops the hook
/// when the person answers at the terminal first, so the hook cannot say so itself;
/// the session's next hook event finds the request's file with its process gone and
/// resolves the event `answered_elsewhere`, and the phones withdraw it. While the
/// hook still waits, the `Notification` of the same prompt sends no second approval.
public struct PendingApprovals: Sendable {
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// One waiting request.
    public struct Entry: Sendable, Equatable {
        public let eventID: String
        public let processID: Int32
    }

    /// Notes that this process waits on `eventID` for `session`.
    public func record(eventID: String, session: String?, processID: Int32 = getpid()) {
        guard Self.prepare(directory: directory) else { return }
        let text = [String(processID), eventID].joined(separator: "\n")
        _ = FileManager.default.createFile(
            atPath: path(of: eventID, session: session), contents: Data(text.utf8),
            attributes: [.posixPermissions: 0o600])
    }

    /// The request of `eventID` is over (decided, expired, given up).
    public func remove(eventID: String, session: String?) {
        try? FileManager.default.removeItem(atPath: path(of: eventID, session: session))
    }

    /// The session's requests whose hook still waits.
    public func waiting(session: String?) -> [Entry] {
        entries(of: session).filter { Self.isRunning($0.processID) }
    }

    /// The session's requests whose hook is gone without a word (stopped: the
    /// terminal answered), each removed as it is returned.
    public func takeAbandoned(session: String?) -> [Entry] {
        entries(of: session).filter { entry in
            guard !Self.isRunning(entry.processID) else { return false }
            remove(eventID: entry.eventID, session: session)
            return true
        }
    }

    private func entries(of session: String?) -> [Entry] {
        let prefix = Self.sessionPrefix(session)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return names.filter { $0.hasPrefix(prefix) }.compactMap { name in
            guard let data = FileManager.default.contents(atPath: directory + "/" + name), data.count <= 1024
            else { return nil }
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", maxSplits: 1)
            guard lines.count == 2, let processID = Int32(lines[0]), processID > 0 else { return nil }
            return Entry(eventID: String(lines[1]), processID: processID)
        }
    }

    private func path(of eventID: String, session: String?) -> String {
        directory + "/" + Self.sessionPrefix(session) + String(SHA256Hex.digest(of: eventID).prefix(16))
    }

    /// Files of one session share the start of their name.
    private static func sessionPrefix(_ session: String?) -> String {
        String(SHA256Hex.digest(of: session ?? "no-session").prefix(16)) + "-"
    }

    /// The directory, made 0700 when missing; `false` when it cannot be used or is
    /// not the user's own (another user's directory must not learn or steer this).
    static func prepare(directory: String) -> Bool {
        try? FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var status = stat()
        guard lstat(directory, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == getuid() else {
            return false
        }
        return true
    }

    /// Whether a process of that id still exists (another user's answers EPERM).
    private static func isRunning(_ processID: Int32) -> Bool {
        kill(processID, 0) == 0 || errno == EPERM
    }
}
