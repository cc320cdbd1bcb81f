import ArgumentParser
import Foundation

/// A file written beside its destination and renamed over it once whole and synced
/// (then the directory synced, so that the rename survives a crash too): the
/// destination is never half a dump or half a backup.
struct PartialFile {
    let destination: String
    let partial: String
    let descriptor: Int32

    /// Creates the partial file, empty, with `mode` (a dump or a backup holds device
    /// tokens: by default readable by its owner only).
    init(creating destination: String, mode: mode_t = 0o600) throws {
        self.destination = destination
        partial = destination + ".partial-\(ProcessInfo.processInfo.processIdentifier)"
        unlink(partial)
        descriptor = open(partial, O_WRONLY | O_CREAT | O_TRUNC, mode)
        guard descriptor >= 0 else {
            throw CommandFailure("cannot create \(partial): \(String(cString: strerror(errno)))")
        }
        // The umask must not loosen or narrow what was asked for.
        fchmod(descriptor, mode)
    }

    /// Writes `data` to `destination` whole, with `mode` from the first byte on (a key
    /// file is never readable by others, not even while it is written).
    static func write(_ data: Data, to destination: String, mode: mode_t = 0o600) throws {
        let file = try PartialFile(creating: destination, mode: mode)
        let written = data.withUnsafeBytes { Glibc.write(file.descriptor, $0.baseAddress, $0.count) }
        guard written == data.count else {
            let reason = String(cString: strerror(errno))
            file.discard()
            throw CommandFailure("cannot write \(destination): \(reason)")
        }
        try file.commit()
    }

    func commit() throws {
        defer { close(descriptor) }
        let directory = (destination as NSString).deletingLastPathComponent
        guard fsync(descriptor) == 0, rename(partial, destination) == 0, Self.sync(directory: directory) else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw CommandFailure("cannot write \(destination): \(reason)")
        }
    }

    func discard() {
        close(descriptor)
        unlink(partial)
    }

    private static func sync(directory: String) -> Bool {
        let descriptor = open(directory.isEmpty ? "." : directory, O_RDONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return fsync(descriptor) == 0
    }
}
