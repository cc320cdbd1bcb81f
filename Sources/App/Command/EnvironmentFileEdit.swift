import Foundation
import PushgateAgentSide
import PushgateClient

#if canImport(Glibc)
    // `struct stat` and its fields are declared, for this target, in the module of
    // Foundation's C headers.
    import CoreFoundation
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One edit of an env file that a service reads (the proxy's `/etc/claude-proxy.env`),
/// safe beside another edit at the same moment and kind to the file's owner:
///
/// - a symlink is followed: the file it names is edited, and the link stays a link
///   (replacing the link would leave its target, which the service may read, with the
///   old values);
/// - edits take turns: each holds an exclusive `flock` on `.<name>.lock` beside the file
///   from its read to its rename (``FileLock``), so that every change reported done is
///   in the file (two at once lost one in most pairs). It and the file are opened
///   without waiting and checked as opened: a FIFO in either place is refused, never
///   waited on;
/// - the new text replaces the file whole (``PrivateFile``): mode 0600, its user and
///   group kept (a file root edits for the service that reads it stays readable by
///   that service).
struct EnvironmentFileEdit {
    /// The file edited: the path given, with its symlinks followed.
    let target: String
    /// The file's mode before the edit; `nil` when it was made.
    let previousMode: mode_t?

    /// How long an edit waits for another to finish.
    static let lockWait: Duration = .seconds(10)
    /// The largest file read: an env file is a few lines.
    static let maxBytes = 1 << 20

    /// Whether the file could be read by others than its owner before.
    var wasShared: Bool { (previousMode ?? 0) & 0o077 != 0 }

    /// Edits the file at `path` (made when missing): `change` gets its text ("" when
    /// missing) and returns the new text, under the lock.
    @discardableResult
    static func edit(_ path: String, _ change: (String) throws -> String) throws -> EnvironmentFileEdit {
        let target = try following(path)
        var status = stat()
        // Before the lock too, so that a directory given by mistake gets no lock file beside it.
        var owner: PrivateFile.Owner?
        if stat(target, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFREG else { throw CommandFailure("\(target) is not a regular file") }
            owner = PrivateFile.Owner(user: status.st_uid, group: status.st_gid)
        }
        let lock: FileLock
        do {
            lock = try FileLock(beside: target, owner: owner, wait: lockWait)
        } catch {
            throw CommandFailure(error.description)
        }
        var existing = ""
        var previous: (mode: mode_t, owner: PrivateFile.Owner)?
        // Opened without waiting (a FIFO put in its place would hold the edit for
        // good) and without following a link put there since; checked as opened.
        let descriptor = open(target, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        if descriptor >= 0 {
            defer { close(descriptor) }
            guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
                throw CommandFailure("\(target) is not a regular file")
            }
            guard status.st_size <= maxBytes else {
                throw CommandFailure("\(target) is over \(maxBytes >> 20) MiB: not an env file")
            }
            guard let bytes = readAll(descriptor, upTo: maxBytes) else {
                throw CommandFailure("cannot read \(target): \(reason())")
            }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw CommandFailure("cannot read \(target) as UTF-8 text")
            }
            existing = text
            previous = (status.st_mode & 0o7777, PrivateFile.Owner(user: status.st_uid, group: status.st_gid))
        } else if errno == ELOOP {
            throw CommandFailure("\(target) is not a regular file")
        } else if errno != ENOENT {
            throw CommandFailure("cannot read \(target): \(reason())")
        }
        let updated = try change(existing)
        do {
            try PrivateFile.write(Data(updated.utf8), to: target, owner: previous?.owner)
        } catch {
            throw CommandFailure(error.description)
        }
        _ = consume lock
        return EnvironmentFileEdit(target: target, previousMode: previous?.mode)
    }

    /// `path` with its symlinks followed, to the file they name (which may not exist yet).
    static func following(_ path: String) throws -> String {
        var current = path
        for _ in 0..<40 {
            var status = stat()
            guard lstat(current, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return current }
            let destination: String
            do {
                destination = try FileManager.default.destinationOfSymbolicLink(atPath: current)
            } catch {
                throw CommandFailure("cannot follow the symbolic link \(current): \(error.localizedDescription)")
            }
            let directory = (current as NSString).deletingLastPathComponent
            current = destination.hasPrefix("/") || directory.isEmpty ? destination : directory + "/" + destination
        }
        throw CommandFailure("\(path): too many levels of symbolic links")
    }

    /// What is left to read of `descriptor`, at most `limit` bytes; `nil` when a read fails.
    private static func readAll(_ descriptor: Int32, upTo limit: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count < limit {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return nil }
            if count == 0 { break }
            bytes += chunk.prefix(min(count, limit - bytes.count))
        }
        return bytes
    }

    private static func reason() -> String {
        String(cString: strerror(errno))
    }
}
