import MCP
import PushgateCore

/// What became of a push on each device, in words for an agent, from a trigger's
/// answer (`triggerEvent`'s): delivered, failed and why (and whether the device's
/// registration was removed for it), still being tried — or that nobody is
/// subscribed, which is not "accepted".
struct DeliveryReport {
    let deviceCount: Int
    let text: String
    let structured: Value

    init(_ answer: [String: JSONValue], cwd: String) {
        func count(_ name: String) -> Int {
            if case .number(let number)? = answer[name], let whole = Int(exactly: number) { return whole }
            return 0
        }
        deviceCount = count("device_count")
        var devices: [Value] = []
        var lines: [String] = []
        for response in (answer["responses"]?.arrayValue ?? []).compactMap(\.objectValue) {
            let id = response["installation_id"]?.stringValue ?? "?"
            let service = response["provider"]?.stringValue ?? "?"
            let state: String
            var reason: String?
            if response["success"] == .bool(true) {
                state = "delivered"
            } else if response["pending"] == .bool(true) {
                state = "pending"
            } else {
                state = "failed"
                let error = response["error"]?.objectValue
                reason = error?["reason"]?.stringValue ?? "unknown"
                if error?["removed"] == .bool(true) { reason = (reason ?? "") + "; its registration was removed" }
            }
            let words = state == "pending" ? "still being tried" : reason.map { "failed: \($0)" } ?? state
            lines.append("- \(id) (\(service)): \(words)")
            var device: [String: Value] = [
                "installation_id": .string(id), "service": .string(service), "state": .string(state),
            ]
            device["reason"] = reason.map(Value.string)
            devices.append(.object(device))
        }
        if answer["reason"]?.stringValue == "unknown_server" {
            text = "Nobody has registered with this push secret yet: no push was sent."
        } else if deviceCount == 0 {
            text =
                "Nobody is subscribed to \(cwd): no push was sent (a phone subscribes when the agent's chat is opened in the app)."
        } else if lines.isEmpty {
            text =
                "Sent to \(deviceCount) devices of \(cwd): \(count("success_count")) delivered, \(count("failure_count")) failed, \(count("pending_count")) still being tried."
        } else {
            text = "Sent to \(cwd):\n" + lines.joined(separator: "\n")
        }
        var structured: [String: Value] = [
            "device_count": .int(deviceCount), "delivered": .int(count("success_count")),
            "failed": .int(count("failure_count")), "pending": .int(count("pending_count")), "devices": .array(devices),
        ]
        structured["event_id"] = answer["event_id"]?.stringValue.map(Value.string)
        self.structured = .object(structured)
    }
}
