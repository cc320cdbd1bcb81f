import Foundation

/// Base64url (RFC 4648 §5) without padding, as JSON Web Tokens and Web Push keys
/// write it. Byte by byte over a table: a Web Push fan-out decodes two keys a push,
/// and Foundation's string replacements cost a twentieth of its CPU.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each byte's value in either alphabet (`-_` and `+/`), 0xFF for any other byte.
    private static let values: [UInt8] = {
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.enumerated() { values[Int(byte)] = UInt8(value) }
        values[Int(UInt8(ascii: "+"))] = 62
        values[Int(UInt8(ascii: "/"))] = 63
        return values
    }()

    public static func encode(_ data: some DataProtocol) -> String {
        let bytes = [UInt8](data)
        var out = [UInt8]()
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out += [
                alphabet[Int(group >> 18 & 63)], alphabet[Int(group >> 12 & 63)], alphabet[Int(group >> 6 & 63)],
                alphabet[Int(group & 63)],
            ]
            index += 3
        }
        switch bytes.count - index {
        case 1:
            let group = UInt32(bytes[index]) << 16
            out += [alphabet[Int(group >> 18 & 63)], alphabet[Int(group >> 12 & 63)]]
        case 2:
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            out += [alphabet[Int(group >> 18 & 63)], alphabet[Int(group >> 12 & 63)], alphabet[Int(group >> 6 & 63)]]
        default:
            break
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes base64url (or base64) with or without padding; `nil` when it is not:
    /// a byte outside the alphabet, padding anywhere but at the end, or a length no
    /// encoding has.
    public static func decode(_ text: some StringProtocol) -> Data? {
        var bytes = Array(text.utf8)
        if bytes.count.isMultiple(of: 4), bytes.last == UInt8(ascii: "=") {
            bytes.removeLast()
            if bytes.last == UInt8(ascii: "=") { bytes.removeLast() }
        }
        guard bytes.count % 4 != 1 else { return nil }
        var out = Data(capacity: bytes.count * 3 / 4)
        var group: UInt32 = 0
        var filled = 0
        for byte in bytes {
            let value = values[Int(byte)]
            guard value != 0xFF else { return nil }
            group = group << 6 | UInt32(value)
            filled += 1
            if filled == 4 {
                out.append(contentsOf: [UInt8(group >> 16 & 0xFF), UInt8(group >> 8 & 0xFF), UInt8(group & 0xFF)])
                group = 0
                filled = 0
            }
        }
        switch filled {
        case 2: out.append(UInt8(group >> 4 & 0xFF))
        case 3: out.append(contentsOf: [UInt8(group >> 10 & 0xFF), UInt8(group >> 2 & 0xFF)])
        default: break
        }
        return out
    }
}
