import Foundation
import PushgateAgentSide
import PushgateCore
import PushgateFunctions
import PushgateSealing

/// One input of the decision fuzzer (issues 73 and 82), read four ways: as a
/// `decideEvent` body, as the `awaitDecision` answer a waiting hook is given (by a
/// gateway that may lie), as the hook's pin file, and as a pairing link and a typed
/// code. What must hold whatever the bytes: nothing traps; a decision the gateway
/// takes signs a text that reads back as the same fields (no field before the message
/// can carry a line break, so two decisions never share a text); the agent's side obeys
/// no decision at all — the only phone paired is one whose private key nobody here
/// holds — and a refusal prints nothing; a pin file read is written back to the same
/// pins; a link read is written back to the same link.
public enum DecisionFuzzing {
    static let receivedAt = Date(timeIntervalSince1970: 1_795_323_872)
    static let serverKey = String(repeating: "ab", count: 32)
    /// A key the fuzzer holds no private half of, pinned for ``pinnedInstallation``.
    static let pinnedKey = "BL18c7iLLptM7aYgIrLai-Exk6W1btwm5994QuJM0LXrBgWtp72oOsaiuA1-MUBA-kf_Frg7rIXO2wFEUbt85xo"
    static let pinnedInstallation = "pinned-phone"

    public static func check(_ bytes: [UInt8]) {
        checkDecideEvent(bytes)
        checkWaitEnd(bytes)
        checkPinFile(bytes)
        checkPairingLink(bytes)
    }

    static func checkDecideEvent(_ bytes: [UInt8]) {
        guard let fields = try? RequestFields(body: bytes, receivedAt: receivedAt) else { return }
        let request: DecideEventRequest
        do throws(FunctionError) {
            request = try DecideEventRequest(fields: fields)
        } catch {
            return require(error.code == .invalidArgument, "decideEvent refused a body with \(error.code)")
        }
        let signed = request.signed(serverKey: ServerKey(hex: serverKey))
        let lines = String(decoding: signed.signedText, as: UTF8.self)
            .split(separator: "\n", maxSplits: 6, omittingEmptySubsequences: false).map(String.init)
        require(
            lines.count == 7 && lines[2] == request.eventID && lines[3] == request.installationID
                && lines[4] == request.decision.rawValue && lines[5] == String(request.signedAt)
                && lines[6] == (request.message ?? ""),
            "the signed text of a decision does not read back as its fields: \(lines)")
    }

    /// What a hook waiting for a decision makes of `bytes` as `awaitDecision`'s answer.
    static func checkWaitEnd(_ bytes: [UInt8]) {
        guard let answer = try? JSONDecoder().decode(AwaitedDecision.self, from: Data(bytes)),
            let key = DecisionKey(pinnedKey)
        else { return }
        let pins = DecisionPins(phones: [pinnedInstallation: .init(key: key, deviceName: "Phone", pairedAt: nil)])
        for kind in [DecisionKind.approval, .answer] {
            let question = Question(eventID: "claude-0123456789abcdef0123456789abcdef", kind: kind, askedAt: receivedAt)
            let end = DecisionCheck.end(of: answer, for: question, serverKey: ServerKey(hex: serverKey), pins: pins)
            if case .decided(let decision)? = end {
                require(false, "the agent's side obeyed a decision nobody could sign: \(decision)")
            }
            if case .refused(let reason)? = end {
                require(!reason.contains("\n"), "a refusal's line holds a line break: \(reason)")
            }
        }
    }

    static func checkPinFile(_ bytes: [UInt8]) {
        guard let pins = try? DecisionPins(file: bytes) else { return }
        require((try? DecisionPins(file: pins.file)) == pins, "a pin file written back reads as other pins")
    }

    static func checkPairingLink(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let code = PairingCode(typed: text) {
            require(PairingCode(typed: code.grouped) == code, "a code read back from its groups is another code")
        }
        if let link = PairingLink(text) {
            require(PairingLink(link.text) == link, "a pairing link written back reads as another link: \(link.text)")
        }
    }
}
