import Foundation
import PushgateClient

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

/// An exclusive `flock` on `.<name>.lock` beside a file, held while the file is read,
/// changed and replaced, so that two processes editing it take turns and neither loses
/// the other's change (the pins of two `pushgate pair` runs, two edits of an env file).
///
/// The lock file stays: removing it would let a third process lock a new file while
/// the second still waits on the old one. It is opened without waiting and checked as
/// opened: a FIFO in its place is refused, never waited on.
public struct FileLock: ~Copyable {
    /// Why the lock was not taken.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private let descriptor: Int32

    /// Takes the lock beside `target`, waiting at most `wait` for another holder; made
    /// 0600, and given to `owner` (the file's) when root makes it, so that the file's
    /// own user can take its turn.
    public init(beside target: String, owner: PrivateFile.Owner? = nil, wait: Duration = .seconds(10)) throws(Failure) {
        let directory = (target as NSString).deletingLastPathComponent
        let name = "." + (target as NSString).lastPathComponent + ".lock"
        let path = directory.isEmpty ? name : directory + "/" + name
        let descriptor = open(path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw Failure(description: "cannot lock \(target): cannot open \(path): \(Self.reason())")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw Failure(description: "cannot lock \(target): \(path) is not a regular file")
        }
        if status.st_uid == geteuid() {
            // One made 0644 by an earlier version holds nothing, but is no one else's to read either.
            if status.st_mode & 0o077 != 0 { fchmod(descriptor, 0o600) }
            if let owner, owner.user != geteuid(), geteuid() == 0 { fchown(descriptor, owner.user, owner.group) }
        }
        let deadline = ContinuousClock.now + wait
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let failure = errno
            guard failure == EWOULDBLOCK || failure == EINTR else {
                close(descriptor)
                throw Failure(description: "cannot lock \(path): \(String(cString: strerror(failure)))")
            }
            guard ContinuousClock.now < deadline else {
                close(descriptor)
                throw Failure(
                    description:
                        "\(target) is being changed by another process (it holds \(path)): gave up after \(wait)")
            }
            usleep(10_000)
        }
        self.descriptor = descriptor
    }

    deinit {
        // Closing the descriptor lets the next holder go.
        close(descriptor)
    }

    private static func reason() -> String {
        String(cString: strerror(errno))
    }
}
