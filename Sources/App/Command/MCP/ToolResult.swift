import PushgateCore

/// What a tool call answers (MCP's `CallToolResult`): words for the model, the same
/// answer as structured content (what the tool's output schema describes, issue 83),
/// and whether the tool failed — bad arguments included, so that the model can
/// correct itself.
struct ToolResult: Sendable, Equatable {
    let text: String
    let structured: JSONValue?
    let isError: Bool

    init(_ text: String, structured: JSONValue? = nil, isError: Bool = false) {
        self.text = text
        self.structured = structured
        self.isError = isError
    }

    /// A failure: the reason in words.
    static func failed(_ text: String, structured: JSONValue? = nil) -> ToolResult {
        ToolResult(text, structured: structured, isError: true)
    }

    /// The result's JSON: the words, then a text block holding the structured content's
    /// JSON (for clients that read text only), the structured content, `isError`.
    var json: JSONValue {
        var content: [JSONValue] = [["type": "text", "text": .string(text)]]
        var result: [String: JSONValue] = ["isError": .bool(isError)]
        if let structured, let encoded = try? structured.encodedBytes() {
            content.append(["type": "text", "text": .string(String(decoding: encoded, as: UTF8.self))])
            result["structuredContent"] = structured
        }
        result["content"] = .array(content)
        return .object(result)
    }
}
