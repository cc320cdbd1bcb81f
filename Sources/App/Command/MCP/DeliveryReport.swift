import PushgateAgentSide
import PushgateCore

/// What became of a push on each device, in words for an agent, from a trigger's
/// receipt: delivered, failed and why (and whether the device's registration was
/// removed for it), still being tried — or that nobody is subscribed, which is not
/// "accepted". Its structured form is what `notify_user`'s output schema
/// (``outputSchema``) describes.
struct DeliveryReport {
    /// `notify_user`'s output schema: the structured form's shape.
    static let outputSchema: JSONValue = [
        "type": "object",
        "properties": [
            "device_count": ["type": "integer"], "delivered": ["type": "integer"], "failed": ["type": "integer"],
            "pending": ["type": "integer"], "event_id": ["type": "string"],
            "devices": [
                "type": "array",
                "items": [
                    "type": "object",
                    "properties": [
                        "installation_id": ["type": "string"], "service": ["type": "string"],
                        "state": ["type": "string", "enum": ["delivered", "failed", "pending"]],
                        "reason": ["type": "string"],
                    ],
                    "required": ["installation_id", "service", "state"],
                ],
            ],
        ],
        "required": ["device_count", "delivered", "failed", "pending", "devices"],
    ]

    let deviceCount: Int
    let text: String
    let structured: JSONValue

    init(_ receipt: TriggerReceipt, cwd: String) {
        deviceCount = receipt.deviceCount
        var devices: [JSONValue] = []
        var lines: [String] = []
        for response in receipt.responses ?? [] {
            let state: String
            var reason: String?
            if response.success {
                state = "delivered"
            } else if response.pending == true {
                state = "pending"
            } else {
                state = "failed"
                reason = response.error?.reason ?? "unknown"
                if response.error?.removed == true { reason = (reason ?? "") + "; its registration was removed" }
            }
            let words = state == "pending" ? "still being tried" : reason.map { "failed: \($0)" } ?? state
            lines.append("- \(response.installationID) (\(response.provider)): \(words)")
            var device: [String: JSONValue] = [
                "installation_id": .string(response.installationID), "service": .string(response.provider),
                "state": .string(state),
            ]
            device["reason"] = reason.map(JSONValue.string)
            devices.append(.object(device))
        }
        let (delivered, failed, pending) = (
            receipt.successCount ?? 0, receipt.failureCount ?? 0, receipt.pendingCount ?? 0
        )
        if receipt.reason == "unknown_server" {
            text = "Nobody has registered with this push secret yet: no push was sent."
        } else if deviceCount == 0 {
            text =
                "Nobody is subscribed to \(cwd): no push was sent (a phone subscribes when the agent's chat is opened in the app)."
        } else if lines.isEmpty {
            text =
                "Sent to \(deviceCount) devices of \(cwd): \(delivered) delivered, \(failed) failed, \(pending) still being tried."
        } else {
            text = "Sent to \(cwd):\n" + lines.joined(separator: "\n")
        }
        var structured: [String: JSONValue] = [
            "device_count": .number(Double(deviceCount)), "delivered": .number(Double(delivered)),
            "failed": .number(Double(failed)), "pending": .number(Double(pending)), "devices": .array(devices),
        ]
        structured["event_id"] = receipt.eventID.map(JSONValue.string)
        self.structured = .object(structured)
    }
}
