#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Random (version 4) UUIDs in lower-case canonical form: push ids (`apns-id`) and
/// notification ids.
///
/// Foundation's `UUID()` opens `/dev/urandom` on every call on Linux, which showed
/// as a tenth of a fan-out's time; this draws from the kernel's generator with
/// `getentropy`, sixteen UUIDs a call for a page of deliveries (a system call per
/// UUID still showed), and formats without `printf`.
public enum RandomUUID {
    private static let digits = Array("0123456789abcdef".utf8)

    /// The most `getentropy` gives in one call.
    private static let entropyPerCall = 256

    public static func make() -> String {
        make(count: 1)[0]
    }

    /// `count` UUIDs.
    public static func make(count: Int) -> [String] {
        var uuids: [String] = []
        uuids.reserveCapacity(count)
        var bytes = [UInt8](repeating: 0, count: entropyPerCall)
        while uuids.count < count {
            let wanted = min(count - uuids.count, entropyPerCall / 16)
            fill(&bytes, count: wanted * 16)
            bytes.withUnsafeBytes { raw in
                for offset in stride(from: 0, to: wanted * 16, by: 16) {
                    uuids.append(
                        format(
                            high: UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)),
                            low: UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))))
                }
            }
        }
        return uuids
    }

    /// The first `count` bytes (at most 256) from the kernel; should `getentropy`
    /// fail, from the standard library's generator.
    private static func fill(_ bytes: inout [UInt8], count: Int) {
        let filled = bytes.withUnsafeMutableBytes { getentropy($0.baseAddress, count) } == 0
        guard !filled else { return }
        var generator = SystemRandomNumberGenerator()
        for index in 0..<count { bytes[index] = generator.next() }
    }

    private static func format(high: UInt64, low: UInt64) -> String {
        var high = high
        var low = low
        high = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000  // version 4
        low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // RFC 4122 variant
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var position = 0
            func put(_ value: UInt64, nibbles: Int) {
                for shift in stride(from: (nibbles - 1) * 4, through: 0, by: -4) {
                    buffer[position] = digits[Int((value >> UInt64(shift)) & 0xF)]
                    position += 1
                }
            }
            func dash() {
                buffer[position] = UInt8(ascii: "-")
                position += 1
            }
            put(high >> 32, nibbles: 8)
            dash()
            put(high >> 16, nibbles: 4)
            dash()
            put(high, nibbles: 4)
            dash()
            put(low >> 48, nibbles: 4)
            dash()
            put(low, nibbles: 12)
            return position
        }
    }
}
