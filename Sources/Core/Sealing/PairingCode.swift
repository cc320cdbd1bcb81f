/// The one-time code that pairs a phone with an agent's machine (issue 82): Crockford's
/// base32 (`0-9` and the letters but I, L, O and U), made on the agent's machine and
/// carried to the phone by the person's eyes or camera, never through the gateway. The
/// phone signs it (``SignedPairing``); only the machine that made it can check that
/// signature, so a gateway that lies cannot pair a key of its own.
public struct PairingCode: Sendable, Hashable, CustomStringConvertible {
    /// Crockford's alphabet: 32 symbols, 5 bits each.
    public static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    /// The length a made code has: 60 random bits, three groups of 4 to type.
    public static let length = 12
    /// The shortest code read (50 bits), and the longest.
    public static let readable = 10...64

    /// Upper case, no separators: what the link carries and the phone signs.
    public let text: String

    /// A fresh code from the system's secure random source.
    public static func make() -> PairingCode {
        var generator = SystemRandomNumberGenerator()
        return PairingCode(trusted: String((0..<length).map { _ in alphabet[Int(generator.next() % 32)] }))
    }

    private init(trusted text: String) {
        self.text = text
    }

    /// A code as a person types it or a link carries it: in either case, with spaces
    /// and hyphens anywhere; I and L read as 1, O as 0 (as Crockford's decoding reads
    /// them). `nil` for anything else, or a length outside ``readable``.
    public init?(typed: String) {
        var symbols: [Character] = []
        for character in typed.uppercased() {
            switch character {
            case " ", "-", "\t": continue
            case "I", "L": symbols.append("1")
            case "O": symbols.append("0")
            case _ where Self.alphabet.contains(character): symbols.append(character)
            default: return nil
            }
            guard symbols.count <= Self.readable.upperBound else { return nil }
        }
        guard Self.readable.contains(symbols.count) else { return nil }
        text = String(symbols)
    }

    /// In groups of 4 with hyphens, to read and type: `7KQ2-M9XD-4TRB`.
    public var grouped: String {
        stride(from: 0, to: text.count, by: 4).map { start in
            String(text.dropFirst(start).prefix(4))
        }.joined(separator: "-")
    }

    public var description: String { grouped }
}
