import Foundation
import PushgateCore

/// A question put to the person with its choices (issue 84): Claude Code's
/// `AskUserQuestion` (its tool input: `questions`, each with `question`, `header`,
/// `options` of `{label, description}` and `multiSelect`), `ask_user`'s `choices`, or
/// an MCP server's form elicitation (`requested_schema`: a flat object of strings,
/// numbers, integers, booleans and enums). It travels to the phone as the trigger's
/// `choices` (``json``); the phone answers in words that are a JSON text — `{"<question>":
/// "<label>"}` for questions, the content object for a form — which ``read(_:)`` checks
/// against what was asked before anything reaches the agent.
public enum Choices: Sendable, Equatable {
    /// One question and its options (up to 4 are shown as buttons; more in the app).
    public struct Item: Sendable, Equatable {
        public let question: String
        public let header: String?
        public let options: [String]
        public let multiSelect: Bool

        public init(question: String, header: String?, options: [String], multiSelect: Bool) {
            self.question = question
            self.header = header
            self.options = options
            self.multiSelect = multiSelect
        }
    }

    /// One field of a form: its name, what the person reads, its type, and for an
    /// enum its values.
    public struct Field: Sendable, Equatable {
        public enum Kind: String, Sendable, Equatable {
            case string, number, integer, boolean
        }

        public let name: String
        public let title: String?
        public let kind: Kind
        public let values: [String]?
        public let required: Bool
        let minimum: Double?
        let maximum: Double?
        let minLength: Int?
        let maxLength: Int?
    }

    case questions([Item])
    case form([Field])

    /// Why what was asked, or what was answered, cannot be used.
    public struct Unusable: Error, Equatable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// The most questions, options and fields one push carries (AskUserQuestion asks
    /// 1 to 4 questions of 2 to 4 options).
    static let maxItems = 4
    static let maxOptions = 10
    static let maxFields = 20

    /// The most bytes the choices take as JSON: what the gateway takes (a push holds 4 KiB).
    static let maxBytes = 2048

    /// `AskUserQuestion`'s tool input.
    public static func askUserQuestion(_ input: JSONValue?) throws(Unusable) -> Choices {
        let asked = input?.objectValue?["questions"]?.arrayValue ?? []
        guard (1...maxItems).contains(asked.count) else {
            throw Unusable("AskUserQuestion asks 1 to \(maxItems) questions, not \(asked.count)")
        }
        var items: [Item] = []
        for entry in asked {
            let object = entry.objectValue ?? [:]
            guard let question = object["question"]?.stringValue, shown(question, upTo: 1000) else {
                throw Unusable("an AskUserQuestion question without its text")
            }
            let options = (object["options"]?.arrayValue ?? []).compactMap {
                $0.objectValue?["label"]?.stringValue ?? $0.stringValue
            }
            guard options.count <= maxOptions, options.allSatisfy({ shown($0, upTo: 200) }) else {
                throw Unusable("the question '\(question.prefix(64))' has options this push cannot carry")
            }
            items.append(
                Item(
                    question: question,
                    header: object["header"]?.stringValue.map { String($0.prefix(64)) }.flatMap {
                        shown($0, upTo: 64) ? $0 : nil
                    }, options: options, multiSelect: object["multiSelect"] == .bool(true)))
        }
        guard Set(items.map(\.question)).count == items.count else { throw Unusable("two questions read the same") }
        return try Choices.questions(items).fitting()
    }

    /// An elicitation's `requested_schema` (MCP: a flat object; each property a
    /// string — with `enum`, a choice —, a number, an integer or a boolean).
    public static func form(_ schema: JSONValue?) throws(Unusable) -> Choices {
        let object = schema?.objectValue ?? [:]
        let properties = object["properties"]?.objectValue ?? [:]
        guard (1...maxFields).contains(properties.count) else {
            throw Unusable("the form has \(properties.count) fields; 1 to \(maxFields) reach a phone")
        }
        let required = Set((object["required"]?.arrayValue ?? []).compactMap(\.stringValue))
        var fields: [Field] = []
        for (name, property) in properties.sorted(by: { $0.key < $1.key }) {
            let field = property.objectValue ?? [:]
            guard shown(name, upTo: 64), let type = field["type"]?.stringValue, let kind = Field.Kind(rawValue: type)
            else { throw Unusable("the form's field '\(name.prefix(64))' is none of string, number, integer, boolean") }
            let values = (field["enum"]?.arrayValue).map { $0.compactMap(\.stringValue) }
            if let values, values.isEmpty || values.count > maxOptions || !values.allSatisfy({ shown($0, upTo: 200) }) {
                throw Unusable(
                    "the form's field '\(name)' offers \(values.count) choices; 1 to \(maxOptions) reach a phone")
            }
            fields.append(
                Field(
                    name: name,
                    title: (field["title"] ?? field["description"])?.stringValue.map { String($0.prefix(200)) }.flatMap
                    {
                        shown($0, upTo: 200) ? $0 : nil
                    },
                    kind: kind, values: values, required: required.contains(name),
                    minimum: Self.number(field["minimum"]), maximum: Self.number(field["maximum"]),
                    minLength: Self.number(field["minLength"]).flatMap { Int(exactly: $0) },
                    maxLength: Self.number(field["maxLength"]).flatMap { Int(exactly: $0) }))
        }
        return try Choices.form(fields).fitting()
    }

    /// Text a phone shows as it is: 1 to `limit` characters, none of them invisible.
    private static func shown(_ text: String, upTo limit: Int) -> Bool {
        (1...limit).contains(text.count) && InvisibleCharacters.first(in: text) == nil
    }

    /// Itself, when its JSON fits a push (``maxBytes``).
    private func fitting() throws(Unusable) -> Choices {
        let bytes = (try? json.encodedBytes())?.count ?? Int.max
        guard bytes <= Self.maxBytes else {
            throw Unusable("the choices take \(bytes) bytes as JSON; a push carries \(Self.maxBytes)")
        }
        return self
    }

    private static func number(_ value: JSONValue?) -> Double? {
        if case .number(let number)? = value, number.isFinite { return number }
        return nil
    }

    /// What the trigger's `choices` carries to the phone.
    public var json: JSONValue {
        switch self {
        case .questions(let items):
            return [
                "questions": .array(
                    items.map { item in
                        var object: [String: JSONValue] = [
                            "question": .string(item.question), "options": .array(item.options.map(JSONValue.string)),
                            "multi_select": .bool(item.multiSelect),
                        ]
                        object["header"] = item.header.map(JSONValue.string)
                        return .object(object)
                    })
            ]
        case .form(let fields):
            return [
                "fields": .array(
                    fields.map { field in
                        var object: [String: JSONValue] = [
                            "name": .string(field.name), "type": .string(field.kind.rawValue),
                            "required": .bool(field.required),
                        ]
                        object["title"] = field.title.map(JSONValue.string)
                        object["enum"] = field.values.map { .array($0.map(JSONValue.string)) }
                        return .object(object)
                    })
            ]
        }
    }

    /// The person's words checked against what was asked: for questions, `{"<question>":
    /// "<answer>"}` with every question answered (a label, or the person's own words,
    /// as Claude Code's own dialog takes them under "Other"); for a form, its content,
    /// each value of its field's type and within its bounds, every required field
    /// there, no other. Words that are no JSON answer a single question, or a form of
    /// one text field, as they are.
    public func read(_ words: String) throws(Unusable) -> JSONValue {
        let parsed = (try? JSONValue.parse(Array(words.utf8)))?.objectValue
        switch self {
        case .questions(let items):
            guard let parsed else {
                guard items.count == 1 else { throw Unusable("the answer is no JSON object of the questions") }
                return [items[0].question: .string(words)]
            }
            var answers: [String: JSONValue] = [:]
            for item in items {
                guard let answer = parsed[item.question]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines),
                    !answer.isEmpty
                else { throw Unusable("the question '\(item.question.prefix(64))' is not answered") }
                answers[item.question] = .string(answer)
            }
            guard parsed.count == items.count else { throw Unusable("the answer names a question nobody asked") }
            return .object(answers)
        case .form(let fields):
            guard let parsed else {
                guard fields.count == 1, fields[0].kind == .string, fields[0].values == nil else {
                    throw Unusable("the answer is no JSON object of the form's fields")
                }
                return [fields[0].name: .string(words)]
            }
            let names = Set(fields.map(\.name))
            if let stranger = parsed.keys.first(where: { !names.contains($0) }) {
                throw Unusable("the answer has a field the form does not: '\(stranger.prefix(64))'")
            }
            for field in fields {
                guard let value = parsed[field.name] else {
                    if field.required { throw Unusable("the form's required field '\(field.name)' is empty") }
                    continue
                }
                try field.check(value)
            }
            return .object(parsed)
        }
    }
}

extension Choices.Field {
    /// Refuses a value not of this field's type, or outside its bounds.
    func check(_ value: JSONValue) throws(Choices.Unusable) {
        let fault = Choices.Unusable(
            "the form's field '\(name)' takes \(kind.rawValue)s\(values.map { " of \($0)" } ?? ""), not \(value)")
        switch (kind, value) {
        case (.string, .string(let text)):
            if let values, !values.contains(text) { throw fault }
            if let minLength, text.count < minLength { throw fault }
            if let maxLength, text.count > maxLength { throw fault }
        case (.number, .number(let number)), (.integer, .number(let number)):
            if kind == .integer, number.rounded() != number { throw fault }
            if let minimum, number < minimum { throw fault }
            if let maximum, number > maximum { throw fault }
        case (.boolean, .bool):
            break
        default:
            throw fault
        }
    }
}
