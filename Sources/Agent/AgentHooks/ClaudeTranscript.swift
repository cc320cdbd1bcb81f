import PushgateCore

/// A Claude Code transcript (JSON Lines) as far as a stop's preview needs it: the
/// text of its last assistant line, e.g.
/// `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"…"}]}}`.
/// Lines that are not JSON, or not an assistant's text (a tool call), are passed over.
public enum ClaudeTranscript {
    /// The most of a transcript's end read: the last reply is near it.
    public static let tailBytes = 4 << 20

    /// The last assistant text in `tail` (the transcript's end; its first line may be cut).
    public static func lastAssistantText(in tail: [UInt8]) -> String? {
        var end = tail.endIndex
        while end > tail.startIndex {
            let start = tail[..<end].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? tail.startIndex
            if let text = assistantText(tail[start..<end]) { return text }
            end = start > tail.startIndex ? start - 1 : tail.startIndex
        }
        return nil
    }

    /// The tools used since the last prompt in `tail`: the `tool_use` blocks of the
    /// assistant lines after the last user line that is a prompt (not a tool's result).
    /// `nil` when the tail holds no prompt (the turn began before it).
    public static func toolUsesSinceLastPrompt(in tail: [UInt8]) -> Int? {
        var uses = 0
        var end = tail.endIndex
        while end > tail.startIndex {
            let start = tail[..<end].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? tail.startIndex
            if let object = try? JSONValue.parse(tail[start..<end]).objectValue,
                let message = object["message"]?.objectValue
            {
                let blocks = message["content"]?.arrayValue?.compactMap(\.objectValue) ?? []
                switch object["type"]?.stringValue {
                case "assistant":
                    uses += blocks.filter { $0["type"]?.stringValue == "tool_use" }.count
                case "user" where !blocks.contains(where: { $0["type"]?.stringValue == "tool_result" }):
                    return uses
                default:
                    break
                }
            }
            end = start > tail.startIndex ? start - 1 : tail.startIndex
        }
        return nil
    }

    /// The id of the last tool call in `tail` (the last `tool_use` block of the last
    /// assistant line that has one): what a permission prompt asks about.
    public static func lastToolUseID(in tail: [UInt8]) -> String? {
        var end = tail.endIndex
        while end > tail.startIndex {
            let start = tail[..<end].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? tail.startIndex
            if let object = try? JSONValue.parse(tail[start..<end]).objectValue,
                object["type"]?.stringValue == "assistant",
                let blocks = object["message"]?.objectValue?["content"]?.arrayValue?.compactMap(\.objectValue),
                let id = blocks.last(where: { $0["type"]?.stringValue == "tool_use" })?["id"]?.stringValue
            {
                return id
            }
            end = start > tail.startIndex ? start - 1 : tail.startIndex
        }
        return nil
    }

    /// The text of one assistant line, its text blocks joined by blank lines.
    static func assistantText(_ line: ArraySlice<UInt8>) -> String? {
        guard line.count > 2, let object = try? JSONValue.parse(line).objectValue,
            object["type"]?.stringValue == "assistant", let message = object["message"]?.objectValue
        else { return nil }
        let texts: [String]
        switch message["content"] {
        case .string(let text)?:
            texts = [text]
        case .array(let blocks)?:
            texts = blocks.compactMap { block in
                guard let block = block.objectValue, block["type"]?.stringValue == "text" else { return nil }
                return block["text"]?.stringValue
            }
        default:
            return nil
        }
        let joined = texts.filter { !$0.isEmpty }.joined(separator: "\n\n")
        return joined.isEmpty ? nil : joined
    }
}
