import Foundation

/// Bytes written to a file descriptor in blocks of 1 MiB: a dump's lines without a
/// system call each.
final class OutputBuffer {
    private let descriptor: Int32
    private var bytes: [UInt8] = []

    init(descriptor: Int32) {
        self.descriptor = descriptor
        bytes.reserveCapacity(1 << 20)
    }

    func writeLine(_ line: [UInt8]) throws {
        bytes.append(contentsOf: line)
        bytes.append(UInt8(ascii: "\n"))
        if bytes.count >= 1 << 20 { try flush() }
    }

    func flush() throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                // Never empty inside this loop.
                guard let base = buffer.baseAddress else { return -1 }
                return write(descriptor, base + offset, buffer.count - offset)
            }
            guard written > 0 else {
                throw CommandFailure("cannot write the dump: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
        bytes.removeAll(keepingCapacity: true)
    }
}
