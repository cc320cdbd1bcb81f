import Foundation
import PushgateAgentSide
import PushgateCore
import PushgateSealing
import Testing

/// `pushgate pair`'s work against a gateway in process (issue 82): only a phone that
/// signed the code this machine made is pinned.
@Suite("Pairing a phone")
struct PhonePairingTests {
    @Test(
        "a completion over a wrong code is refused and named; the phone that signed the code is pinned, with its name")
    func wrongThenRight() async throws {
        let gateway = FakeGateway()
        let pins = ScratchPins()
        let pairing = PhonePairing(gateway: gateway, pins: pins.file, callTimeout: .seconds(2))
        let opened = try await pairing.open(for: 20)
        #expect(opened.link.text.hasPrefix("pushgate://pair?gateway=https%3A%2F%2Fpush.example.test&pairing="))
        let guesser = FakePhone(installationID: "evil", name: "Evil")
        let phone = FakePhone(installationID: "phone", name: "Ana's iPhone")
        let wrong = PairingCode(typed: "0000-0000-0000")!
        gateway.complete(
            opened.pairingID, with: guesser.completion(of: opened.pairingID, code: wrong, serverKey: gateway.serverKey))
        let serverKey = gateway.serverKey
        let later = Task {
            try? await Task.sleep(for: .milliseconds(300))
            gateway.complete(
                opened.pairingID, with: phone.completion(of: opened.pairingID, code: opened.code, serverKey: serverKey))
        }
        let refusals = RefusalLog()
        let ending = await pairing.wait(for: opened) { refusals.add($0) }
        await later.value
        #expect(
            ending
                == .paired(
                    .init(
                        installationID: "phone", deviceName: "Ana's iPhone", fingerprint: phone.decisionKey.fingerprint)
                ))
        let said = refusals.all
        #expect(said.count == 1 && said[0].contains("evil") && said[0].contains("refused"), "\(said)")
        let pinned = try pins.file.read()
        #expect(pinned["phone"]?.key == phone.decisionKey && pinned["phone"]?.deviceName == "Ana's iPhone")
        #expect(pinned["evil"] == nil)
    }

    @Test("nobody completes: the pairing expires, nothing pinned")
    func expires() async throws {
        let gateway = FakeGateway()
        let pins = ScratchPins()
        let pairing = PhonePairing(gateway: gateway, pins: pins.file, callTimeout: .seconds(2))
        let opened = try await pairing.open(for: 1)
        #expect(await pairing.wait(for: opened) { _ in } == .expired)
        #expect(try pins.file.read().isEmpty)
    }

    @Test("the fingerprint: SHA-256 of the 65-byte key, 10 bytes in upper-case hex, 5 groups of 4")
    func fingerprint() throws {
        // The uncompressed point of the private scalar 1: P-256's generator.
        let generator = "BGsX0fLhLEJH-Lzm5WOkQPJ3A32BLeszoPShOUXYmMKWT-NC4v4af5uO5-tKfA-eFivOM1drMV7Oy7ZAaDe_UfU"
        let key = try #require(DecisionKey(generator))
        // Python's hashlib.sha256 over the same 65 bytes.
        #expect(key.fingerprint == "698B EA63 DC44 A344 663F")
    }
}

/// The refusals a pairing said, in order.
final class RefusalLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func add(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
