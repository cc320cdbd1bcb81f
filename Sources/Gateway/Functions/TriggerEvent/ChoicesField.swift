import PushgateCore

/// A trigger's `choices` (issue 84): what a question offers the person — `questions`
/// (1 to 4, each `{question, header?, options: [label], multi_select?}`, Claude Code's
/// AskUserQuestion and `ask_user`'s) or a form's `fields` (1 to 20, each `{name, type:
/// string|number|integer|boolean, title?, enum?, required?}`, an MCP elicitation's) —
/// checked here, and carried to the phone as the JSON text of the push's `choices`
/// data key. The agent's side checks the answer against it again.
enum ChoicesField {
    /// The most bytes the choices take as JSON: a push holds 4 KiB.
    static let maxBytes = 2048

    static func read(_ value: JSONValue) throws(FunctionError) -> String {
        guard let object = value.objectValue, object.count == 1 else {
            throw invalid("an object with questions or fields")
        }
        if let questions = object["questions"] {
            try check(questions, items: 1...4) { item throws(FunctionError) in
                try text(item["question"], 1...1000, "a question")
                if let header = item["header"] { try text(header, 1...64, "a header") }
                guard let options = item["options"]?.arrayValue, options.count <= 10 else {
                    throw invalid("each question with options: at most 10 labels")
                }
                for option in options { try text(option, 1...200, "an option's label") }
                if let multi = item["multi_select"], !Self.isBool(multi) { throw invalid("multi_select true or false") }
                try only(item, ["question", "header", "options", "multi_select"])
            }
        } else if let fields = object["fields"] {
            try check(fields, items: 1...20) { field throws(FunctionError) in
                try text(field["name"], 1...64, "a field's name")
                guard let type = field["type"]?.stringValue, ["string", "number", "integer", "boolean"].contains(type)
                else { throw invalid("each field's type string, number, integer or boolean") }
                if let title = field["title"] { try text(title, 1...200, "a field's title") }
                if let values = field["enum"] {
                    guard let values = values.arrayValue, (1...10).contains(values.count) else {
                        throw invalid("a field's enum: 1 to 10 values")
                    }
                    for value in values { try text(value, 1...200, "an enum value") }
                }
                if let required = field["required"], !Self.isBool(required) { throw invalid("required true or false") }
                try only(field, ["name", "type", "title", "enum", "required"])
            }
        } else {
            throw invalid("an object with questions or fields")
        }
        let bytes: [UInt8]
        do {
            bytes = try value.encodedBytes()
        } catch {
            throw invalid("JSON")
        }
        guard bytes.count <= maxBytes else {
            throw .invalidArgument(
                "'choices' is \(bytes.count) bytes as JSON; at most \(maxBytes) are allowed", field: "choices")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func check(
        _ list: JSONValue, items range: ClosedRange<Int>, _ each: ([String: JSONValue]) throws(FunctionError) -> Void
    ) throws(FunctionError) {
        guard let items = list.arrayValue, range.contains(items.count) else {
            throw invalid("\(range.lowerBound) to \(range.upperBound) of them")
        }
        for item in items {
            guard let object = item.objectValue else { throw invalid("objects") }
            try each(object)
        }
    }

    private static func text(_ value: JSONValue?, _ characters: ClosedRange<Int>, _ what: String) throws(FunctionError)
    {
        guard let text = value?.stringValue, characters.contains(text.count), InvisibleCharacters.first(in: text) == nil
        else {
            throw invalid("\(what) of \(characters.lowerBound) to \(characters.upperBound) visible characters")
        }
    }

    private static func only(_ object: [String: JSONValue], _ keys: Set<String>) throws(FunctionError) {
        if let stranger = object.keys.first(where: { !keys.contains($0) }) {
            throw invalid("no key '\(stranger.prefix(40))'")
        }
    }

    private static func isBool(_ value: JSONValue) -> Bool {
        if case .bool = value { return true }
        return false
    }

    private static func invalid(_ what: String) -> FunctionError {
        .invalidArgument("'choices' must be \(what)", field: "choices")
    }
}
