import PushgateClient

/// One input of the env file fuzzer: its first line is a value, the rest an env file
/// (any bytes: line endings, a byte-order mark, quotes, comments). The value is set as
/// the push secret. What must hold: nothing traps; the file then reads back that value
/// (less the line breaks a value cannot hold); setting it again changes nothing; and
/// every line that does not name the key is still there, byte for byte, in order.
public enum EnvironmentFileFuzzing {
    public static func check(_ bytes: [UInt8]) {
        let split = bytes.firstIndex(of: 0x0A) ?? bytes.endIndex
        let value = String(decoding: bytes[..<split], as: UTF8.self)
        let contents = String(decoding: bytes[split...].dropFirst(), as: UTF8.self)
        let key = ProxyEnvironmentFile.secretKey
        let after = ProxyEnvironmentFile.upserting([(key: key, value: value)], into: contents)
        let readable = String(
            String.UnicodeScalarView(value.unicodeScalars.map { $0 == "\n" || $0 == "\r" ? " " : $0 }))
        let read = ProxyEnvironmentFile.value(of: key, in: after)
        require(
            read == readable,
            "set \(value.debugDescription), read \(read.debugDescription) from \(after.debugDescription)")
        require(
            ProxyEnvironmentFile.upserting([(key: key, value: value)], into: after) == after,
            "setting the same value again changed \(after.debugDescription)")
        // Lines as bytes between line feeds (a CR stays with its line), after a byte-order
        // mark (kept at the start, before whatever line comes first); the input's last
        // line may have gained a line ending.
        let kept = lines(contents).filter { !String(decoding: $0, as: UTF8.self).contains(key) }
        var written = lines(after)[...]
        for (index, line) in kept.enumerated() {
            let isLast = index == kept.count - 1
            guard
                let found = written.firstIndex(where: {
                    $0.elementsEqual(line) || (isLast && $0.elementsEqual(line + [0x0D]))
                })
            else {
                require(
                    false,
                    "the line \(String(decoding: line, as: UTF8.self).debugDescription) of \(contents.debugDescription) is gone from \(after.debugDescription)"
                )
                return
            }
            written = written[written.index(after: found)...]
        }
    }

    private static func lines(_ text: String) -> [[UInt8]] {
        let bytes = Array(text.utf8)
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        let body = bytes.starts(with: mark) ? bytes.dropFirst(mark.count) : bytes[...]
        return body.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
    }
}
