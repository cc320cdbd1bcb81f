import PushgateClient
import Testing

@Suite("Keys and secrets as the gateway makes them")
struct PushgateKeysTests {
    @Test("the server key of the contracts' example secret, and an agent key")
    func keys() {
        #expect(
            PushgateKeys.serverKey(secret: "pushgate-example-secret-0001-0123")
                == "29ee24e33fa3ab951aa676ed4ef2bd4812fd5b23a32aac43ca4588f1953a73b7")
        #expect(PushgateKeys.agentKey(cwd: "/a") != PushgateKeys.agentKey(cwd: "/a/"), "no normalisation")
        #expect(PushgateKeys.agentKey(cwd: "").count == 64)
    }

    @Test("a new secret: 32 random bytes in base64, one the gateway accepts, never the same twice")
    func generated() {
        let secrets = (0..<50).map { _ in PushSecretGenerator.generate() }
        #expect(secrets.allSatisfy { $0.count == 44 && PushSecretGenerator.isAcceptable($0) })
        #expect(Set(secrets).count == 50)
    }

    @Test("what the gateway would refuse is refused here first")
    func acceptable() {
        #expect(!PushSecretGenerator.isAcceptable("short"))
        #expect(!PushSecretGenerator.isAcceptable(String(repeating: "a", count: 31) + "!"))
        #expect(!PushSecretGenerator.isAcceptable(String(repeating: "a", count: 257)))
        #expect(PushSecretGenerator.isAcceptable(String(repeating: "a", count: 32)))
    }
}
