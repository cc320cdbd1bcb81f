import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file only its owner may read, replaced whole: the new contents are written to a
/// file of mode 0600 beside it, flushed, then renamed over it, so a reader sees the
/// old file or the new one, never half of one, and never a moment with looser
/// permissions. Given an `owner`, the new file is that user's and group's before it
/// takes the old one's place (a file root edits for the service that reads it stays
/// the service's).
public enum PrivateFile {
    public struct WriteError: Error, CustomStringConvertible {
        public let description: String
    }

    /// A file's user and group.
    public struct Owner: Sendable, Hashable {
        public var user: uid_t
        public var group: gid_t

        public init(user: uid_t, group: gid_t) {
            self.user = user
            self.group = group
        }
    }

    public static func write(_ data: Data, to path: String, owner: Owner? = nil) throws(WriteError) {
        let directory = (path as NSString).deletingLastPathComponent
        let temporary =
            (directory.isEmpty ? "" : directory + "/") + ".\((path as NSString).lastPathComponent).\(UUID().uuidString)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw WriteError(description: "cannot create a file in \(directory): \(reason())")
        }
        var written = 0
        let failure: String? = data.withUnsafeBytes { buffer -> String? in
            while written < buffer.count {
                guard let base = buffer.baseAddress else { break }
                let count = posixWrite(descriptor, base + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return reason()
                }
                written += count
            }
            if let owner, let failure = keep(owner, of: descriptor) { return failure }
            return fsync(descriptor) == 0 ? nil : reason()
        }
        close(descriptor)
        if let failure {
            unlink(temporary)
            throw WriteError(description: "cannot write \(path): \(failure)")
        }
        guard rename(temporary, path) == 0 else {
            let failure = reason()
            unlink(temporary)
            throw WriteError(description: "cannot replace \(path): \(failure)")
        }
    }

    /// Gives the open file `owner`'s user and group; what stopped it, if they are not
    /// its own now (only root may give a file away).
    private static func keep(_ owner: Owner, of descriptor: Int32) -> String? {
        if fchown(descriptor, owner.user, owner.group) == 0 { return nil }
        let failure = reason()
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_uid == owner.user, status.st_gid == owner.group { return nil }
        return
            "cannot keep its owner (user \(owner.user), group \(owner.group)): \(failure); run as root or as its owner"
    }

    private static func reason() -> String {
        String(cString: strerror(errno))
    }
}

/// POSIX `write`, named apart from Swift's own `write` functions.
private func posixWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
