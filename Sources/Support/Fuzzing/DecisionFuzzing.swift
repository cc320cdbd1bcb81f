import Foundation
import PushgateAgentHooks
import PushgateCore
import PushgateFunctions
import PushgateSealing

/// One input of the decision fuzzer (issue 73), read three ways: as a `decideEvent`
/// body, as the `awaitDecision` answer a waiting hook is given (by a gateway that may
/// lie), and as the hook's pin file. What must hold whatever the bytes: nothing traps;
/// a decision the gateway takes signs a text that reads back as the same fields (no
/// field before the message can carry a line break, so two decisions never share a
/// text); the hook obeys no decision from a pinned installation but by its pinned key,
/// none signed before it asked, and prints one line of `PermissionRequest` output or
/// nothing; a pin file read is written back to the same pins.
public enum DecisionFuzzing {
    static let receivedAt = Date(timeIntervalSince1970: 1_795_323_872)
    static let serverKey = String(repeating: "ab", count: 32)
    /// A key the fuzzer holds no private half of, pinned for ``pinnedInstallation``.
    static let pinnedKey = "BL18c7iLLptM7aYgIrLai-Exk6W1btwm5994QuJM0LXrBgWtp72oOsaiuA1-MUBA-kf_Frg7rIXO2wFEUbt85xo"
    static let pinnedInstallation = "pinned-phone"

    public static func check(_ bytes: [UInt8]) {
        checkDecideEvent(bytes)
        checkHookVerdict(bytes)
        checkPinFile(bytes)
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

    static func checkHookVerdict(_ bytes: [UInt8]) {
        guard let answer = try? JSONValue.parse(bytes) else { return }
        for kind in [DecisionKind.approval, .answer] {
            checkHookVerdict(answer, kind: kind)
        }
    }

    /// The verdict of a hook waiting for a decision of `kind` on `answer`.
    private static func checkHookVerdict(_ answer: JSONValue, kind: DecisionKind) {
        let askedAt = receivedAt
        var pins = DecisionPins(keys: [pinnedInstallation: pinnedKey])
        let verdict = PermissionDecision(
            answer: answer, serverKey: serverKey, eventID: "deploy-42", askedAt: askedAt, kind: kind, pins: &pins)
        switch verdict {
        case .allow, .deny, .answer:
            let object = answer.objectValue
            let decidedBy = object?["decided_by"]?.stringValue
            require(
                object?["decision"]?.stringValue.flatMap(SignedDecision.Decision.init(rawValue:))
                    .map(kind.decisions.contains) == true,
                "the hook obeyed a decision of another kind than it waits for")
            require(
                decidedBy != pinnedInstallation || object?["decision_key"]?.stringValue == pinnedKey,
                "the hook obeyed a pinned phone's decision signed by another key")
            if case .number(let signedAt)? = object?["signed_at"] {
                require(
                    signedAt >= askedAt.timeIntervalSince1970 - SignedDecision.maxClockSkew,
                    "the hook obeyed a decision signed before it asked")
            }
            let output = verdict.output ?? ""
            require(!output.isEmpty && !output.contains("\n"), "the hook's output is not one line: \(output)")
            let printed = try? JSONValue.parse(Array(output.utf8)).objectValue
            if case .answer = verdict {
                require(
                    printed?["decision"] == "block" && printed?["reason"]?.stringValue?.isEmpty == false,
                    "the Stop hook printed what Claude Code and Codex do not read: \(output)")
            } else {
                require(
                    printed?["hookSpecificOutput"]?.objectValue?["hookEventName"] == "PermissionRequest",
                    "the hook printed what Claude Code and Codex do not read: \(output)")
            }
        case .pending, .resolved, .refused:
            require(verdict.output == nil, "the hook printed a decision it did not take")
        }
    }

    static func checkPinFile(_ bytes: [UInt8]) {
        guard let pins = try? DecisionPins(file: bytes) else { return }
        require((try? DecisionPins(file: pins.file)) == pins, "a pin file written back reads as other pins")
    }
}
