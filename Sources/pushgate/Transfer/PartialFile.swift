import ArgumentParser
import Foundation

/// A file written beside its destination and renamed over it once whole and synced,
/// so that the destination is never half a dump.
struct PartialFile {
    let destination: String
    let partial: String
    let descriptor: Int32

    /// Creates the partial file, readable by its owner only (a dump holds device tokens).
    init(creating destination: String) throws {
        self.destination = destination
        partial = destination + ".partial-\(ProcessInfo.processInfo.processIdentifier)"
        descriptor = open(partial, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else {
            throw CommandFailure("cannot create \(partial): \(String(cString: strerror(errno)))")
        }
    }

    func commit() throws {
        defer { close(descriptor) }
        guard fsync(descriptor) == 0, rename(partial, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw CommandFailure("cannot write \(destination): \(reason)")
        }
    }

    func discard() {
        close(descriptor)
        unlink(partial)
    }
}
