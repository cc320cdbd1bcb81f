import Foundation
import PushgateSealing
import Testing

/// Base64url as JWTs and Web Push keys write it, against Foundation's base64.
@Suite("Base64url")
struct Base64URLTests {
    static func foundation(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test("every length 0–100 of random bytes: the same text as Foundation's, and back")
    func roundTrip() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...100 {
            let data = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let text = Base64URL.encode(data)
            #expect(text == Self.foundation(data), "\(length)")
            #expect(Base64URL.decode(text) == data, "\(length)")
            #expect(Base64URL.decode(data.base64EncodedString()) == data, "padded base64 too: \(length)")
        }
    }

    @Test("not base64: a byte outside the alphabet, padding inside, a length no encoding has")
    func refused() {
        for text in ["a", "abcde", "ab=c", "a b", "ab\n", "é", "ab*d", "=abc", "abc==="] {
            #expect(Base64URL.decode(text) == nil, "\(text)")
        }
        #expect(Base64URL.decode("") == Data())
        #expect(Base64URL.decode("AQ==") == Data([1]) && Base64URL.decode("AQ") == Data([1]))
    }
}
