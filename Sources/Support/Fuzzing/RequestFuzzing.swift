import Foundation
import PushgateCore
import PushgateFunctions
import PushgateInstalledServices

/// One input of the request fuzzer: the bytes as a POST body, decoded and checked
/// by every function's request type, as the routes do. What must hold whatever the
/// bytes: nothing crashes; a refusal is a 400 `INVALID_ARGUMENT`; a body that is
/// taken survives a JSON round trip; a request a function accepts carries no C0
/// control character but the tabs and line breaks of its free text.
public enum RequestFuzzing {
    static let receivedAt = Date(timeIntervalSince1970: 1_795_323_872)

    public static func check(_ bytes: [UInt8]) {
        let fields: RequestFields
        do {
            fields = try RequestFields(body: bytes, receivedAt: receivedAt)
        } catch {
            require(error.code == .invalidArgument, "a body refused with \(error.code)")
            return
        }
        // Taken: the same bytes parse as a JSON object.
        guard let object = try? JSONValue.parse(bytes), let members = object.objectValue else {
            return require(false, "a body taken that is not a JSON object")
        }
        if let encoded = try? object.encodedData() {
            require((try? JSONValue.parse(Array(encoded))) == object, "a JSON round trip changed the body")
        }
        // Each function, and its text fields (functions/<name>/request.schema.json);
        // a field a function does not read is not its to refuse.
        let parsers: [(String, [String], (RequestFields) throws(FunctionError) -> Void)] = [
            (
                "registerSubscription",
                [
                    "cwd", "installation_id", "apns_token", "fcm_token", "webpush", "agent_display_name", "platform",
                    "app_version",
                    "bundle_id",
                ],
                { fields throws(FunctionError) in
                    _ = try RegisterSubscriptionRequest(fields: fields, formats: .installed)
                }
            ),
            (
                "triggerReplyFinished",
                [
                    "cwd", "conversation_id", "message_preview", "finished_at", "completion_id",
                    "exclude_installation_id", "exclude_fcm_token",
                ],
                { fields throws(FunctionError) in _ = try TriggerReplyFinishedRequest(fields: fields) }
            ),
            (
                "triggerEvent",
                [
                    "cwd", "type", "title", "body", "event_id", "occurred_at", "thread_id", "app_url", "web_url",
                    "ordering_key",
                ],
                { fields throws(FunctionError) in _ = try TriggerEventRequest(fields: fields) }
            ),
            (
                "resolveEvent", ["event_id", "resolution"],
                { fields throws(FunctionError) in _ = try ResolveEventRequest(fields: fields) }
            ),
            (
                "decideEvent", ["event_id", "installation_id", "decision", "message", "signature"],
                { fields throws(FunctionError) in _ = try DecideEventRequest(fields: fields) }
            ),
            (
                "awaitDecision", ["event_id"],
                { fields throws(FunctionError) in _ = try AwaitDecisionRequest(fields: fields) }
            ),
            (
                "unregisterSubscription", ["cwd", "installation_id"],
                { fields throws(FunctionError) in _ = try UnregisterSubscriptionRequest(fields: fields) }
            ),
            (
                "unregisterInstallation", ["installation_id"],
                { fields throws(FunctionError) in _ = try UnregisterInstallationRequest(fields: fields) }
            ),
        ]
        for (function, textFields, parse) in parsers {
            do {
                try parse(fields)
            } catch {
                require(error.code == .invalidArgument, "\(function) refused a body with \(error.code)")
                continue
            }
            for name in textFields {
                guard case .string(let text)? = members[name] else { continue }
                require(
                    !text.unicodeScalars.contains { $0.value < 0x20 && !"\t\n\r".unicodeScalars.contains($0) },
                    "\(function) took a control character in '\(name)'")
            }
        }
    }
}

/// Stops the run: libFuzzer keeps the input that got here as a crash.
func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}
