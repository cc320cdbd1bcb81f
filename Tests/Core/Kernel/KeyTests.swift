import PushgateCore
import Testing

@Suite("Keys")
struct KeyTests {
    @Test(
        "SHA-256 of known strings, lower-case hex",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ]
    )
    func sha256Vectors(text: String, digest: String) {
        #expect(SHA256Hex.digest(of: text) == digest)
    }

    @Test("serverKey is the SHA-256 of the secret")
    func serverKey() throws {
        let secret = try #require(PushSecret("pushgate-example-secret-0001-0123"))
        #expect(secret.serverKey.hex == "29ee24e33fa3ab951aa676ed4ef2bd4812fd5b23a32aac43ca4588f1953a73b7")
    }

    @Test(
        "agentKey is the SHA-256 of the cwd's UTF-8 bytes, not normalised",
        arguments: [
            ("/root/projects/my-agent", "c8d9173045133c5d7a04b985c2907dc8dfd528403903e88e210322bf8aa7c953"),
            ("/root/projects/my-agent/", "82aef5944a8e869d1e3f6d84c0256d95afa498bf57d7077f99c6be5f5b5228dd"),
            ("/tmp/\u{FC}n\u{EF}code", "cf49d40e0b80a2987c645db37919ed82f5a06383085aa3a356ada4baf9415490"),
        ]
    )
    func agentKey(cwd: String, digest: String) {
        #expect(AgentKey(cwd: cwd).hex == digest)
    }

    @Test("a decomposed cwd is a different agent from its composed form")
    func agentKeyBytes() {
        // Swift's == says these strings are equal; the key must follow the bytes.
        #expect(AgentKey(cwd: "/tmp/\u{FC}") != AgentKey(cwd: "/tmp/u\u{308}"))
    }
}

@Suite("Push secret")
struct PushSecretTests {
    @Test(
        "Authorization headers that carry a secret",
        arguments: [
            ("Bearer 0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef"),
            ("bearer 0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef"),
            ("BEARER   u4lkFh7BmQwOR0QIX0rz1IF3IGdghxginLAiWECaAOk=", "u4lkFh7BmQwOR0QIX0rz1IF3IGdghxginLAiWECaAOk="),
            // base64url, and the longest accepted
            ("Bearer u4lkFh7BmQwOR0QIX0rz1IF3IGdghxginLAiWECaAOk_-", "u4lkFh7BmQwOR0QIX0rz1IF3IGdghxginLAiWECaAOk_-"),
            ("Bearer " + String(repeating: "A", count: 256), String(repeating: "A", count: 256)),
        ]
    )
    func accepted(header: String, secret: String) {
        #expect(PushSecret(authorizationHeader: header)?.value == secret)
    }

    @Test(
        "Authorization headers that do not",
        arguments: [
            "", "Bearer", "Bearer ", "0123456789abcdef0123456789abcdef", "Basic 0123456789abcdef0123456789abcdef",
            "Bearer 0123456789abcdef0123456789abcde",  // 31 characters
            "Bearer " + String(repeating: "A", count: 257),
            "Bearer 0123456789abcdef0123456789abcdef extra", "Bearer 0123456789abcdef0123456789abcdé√",
            // visible ASCII outside the base64 alphabets
            "Bearer 0123456789abcdef0123456789abcdef!", "Bearer 0123456789abcdef0123456789abc.ef",
            "Bearer 0123456789abcdef0123456789abcdef\u{7F}",
        ]
    )
    func refused(header: String) {
        #expect(PushSecret(authorizationHeader: header) == nil)
    }

    @Test("a generated secret is 32 random bytes in base64, never the same twice")
    func generated() {
        let first = PushSecret.generate().value
        let second = PushSecret.generate().value
        #expect(first.count == 44 && first.hasSuffix("="))
        #expect(first != second)
    }

    @Test("the description never shows the secret")
    func redacted() throws {
        let secret = try #require(PushSecret("0123456789abcdef0123456789abcdef"))
        #expect(!"\(secret)".contains("0123456789"))
    }
}
