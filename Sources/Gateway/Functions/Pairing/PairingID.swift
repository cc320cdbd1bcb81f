import PushgateCore

/// A pairing's id as the gateway makes them: 32 lower-case hex digits (128 random bits).
enum PairingID {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.string((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    static func checked(_ text: String) throws(FunctionError) -> String {
        guard text.utf8.count == 32, Hex.bytes(text) != nil else {
            throw .invalidArgument(
                "'pairing_id' must be 32 lower-case hex digits, as startPairing made it", field: "pairing_id")
        }
        return text
    }
}
