import Foundation

/// Reads a file (or standard input) line by line in blocks of 1 MiB, so that a dump
/// of any size is read in bounded memory. A line longer than `maxLineBytes` is
/// returned as `nil` (too long), its bytes skipped.
struct LineReader {
    static let maxLineBytes = 16 << 20

    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    /// Bytes consumed so far, for progress.
    private(set) var bytesRead: Int64 = 0

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The next line without its `\n` (or `\r\n`), `.some(nil)` for a line too long,
    /// `nil` at the end.
    mutating func next() throws -> [UInt8]?? {
        var skipping = false
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                var end = newline
                if end > start, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = Array(buffer[start..<end])
                start = newline + 1
                return skipping ? .some(nil) : .some(line)
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = Array(buffer[start...])
                start = buffer.count
                return skipping ? .some(nil) : .some(line)
            }
            if buffer.count - start > Self.maxLineBytes {
                skipping = true
                start = buffer.count
            }
            try fill()
        }
    }

    private mutating func fill() throws {
        buffer.removeSubrange(0..<start)
        start = 0
        let chunk = 1 << 20
        let old = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: chunk))
        let count = buffer.withUnsafeMutableBytes { bytes in
            // Never empty: a chunk was just appended.
            guard let base = bytes.baseAddress else { return -1 }
            return read(descriptor, base + old, chunk)
        }
        guard count >= 0 else {
            throw CommandFailure("cannot read the input: \(String(cString: strerror(errno)))")
        }
        buffer.removeLast(chunk - count)
        bytesRead += Int64(count)
        if count == 0 { atEnd = true }
    }
}
