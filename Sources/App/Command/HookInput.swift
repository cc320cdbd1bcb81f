import Foundation
import PushgateAgentHooks

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

/// What `pushgate hook` reads beside its options, safely whatever the agent hands it:
/// its standard descriptors (closed ones filled), the event on standard input, the end
/// of the session's transcript.
enum HookInput {
    /// Opens `/dev/null` as each of standard input, output and error that was closed
    /// (`<&-`, `2>&-`): else the next file opened (the gateway's socket) would take its
    /// number, and the hook's line would be written into it.
    static func fillClosedStandardDescriptors() {
        for descriptor in Int32(0)...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            // The lowest number free is the one taken: the closed one.
            let null = open("/dev/null", O_RDWR)
            if null > descriptor {
                dup2(null, descriptor)
                close(null)
            }
        }
    }

    /// Standard input, at most `limit` bytes, read with `read(2)`: `FileHandle` ends the
    /// process when the descriptor is closed (`<&-`) or is a directory. A read that
    /// fails ends the input there (and the event is then, at worst, not JSON), and so
    /// does a descriptor that is no file, pipe, socket or device: one the runtime
    /// opened where a closed standard input was, before the hook could fill it.
    static func standardInput(upTo limit: Int) -> [UInt8] {
        var status = stat()
        guard fstat(0, &status) == 0, [S_IFREG, S_IFIFO, S_IFSOCK, S_IFCHR].contains(status.st_mode & S_IFMT) else {
            return []
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count < limit {
            let count = chunk.withUnsafeMutableBytes { buffer in read(0, buffer.baseAddress, buffer.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk.prefix(min(count, limit - bytes.count))
        }
        return bytes
    }

    /// The end of the transcript at `path` (``ClaudeTranscript/tailBytes``); `nil` for
    /// anything but a regular file that can be read.
    static func transcriptTail(at path: String?) -> [UInt8]? {
        guard let path, let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let file = FileHandle(forReadingAtPath: path)
        else { return nil }
        defer { try? file.close() }
        guard let size = try? file.seekToEnd() else { return nil }
        let tail = UInt64(ClaudeTranscript.tailBytes)
        guard (try? file.seek(toOffset: size > tail ? size - tail : 0)) != nil,
            let data = try? file.read(upToCount: ClaudeTranscript.tailBytes)
        else { return nil }
        return Array(data)
    }
}
