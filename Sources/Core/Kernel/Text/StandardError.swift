#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard error written with `write(2)`, its failures ignored. `FileHandle`'s
/// `write` ends the process when the descriptor is closed (`2>&-`) or its reader has
/// gone (a closed pipe, once SIGPIPE is ignored): nothing a process says on standard
/// error is worth that.
public enum StandardError {
    public static func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { buffer in systemWrite(2, buffer.baseAddress, buffer.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }
}

/// POSIX `write`, named apart from ``StandardError/write(_:)``.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
