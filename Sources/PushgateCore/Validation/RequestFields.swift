/// The fields of a JSON request body, read with checks that name the field at fault.
///
/// `null` counts as absent, as clients often send it for "not given". Fields not
/// asked for are ignored.
public struct RequestFields: Sendable {
    private let object: [String: JSONValue]

    /// Parses a request body: valid UTF-8, valid JSON, an object.
    public init(body: some Collection<UInt8>) throws(FunctionError) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(body)
        } catch .invalidUTF8 {
            throw .invalidArgument("the request body is not valid UTF-8")
        } catch {
            throw .invalidArgument("the request body is not valid JSON")
        }
        guard let object = value.objectValue else {
            throw .invalidArgument("the request body must be a JSON object, not \(value.kindName)")
        }
        self.object = object
    }

    public init(_ object: [String: JSONValue]) {
        self.object = object
    }

    /// A string field that must be present.
    public func requiredString(_ name: String) throws(FunctionError) -> String {
        guard let value = try optionalString(name) else {
            throw .invalidArgument("'\(name)' is required", field: name)
        }
        return value
    }

    /// A string field that may be absent (or `null`).
    public func optionalString(_ name: String) throws(FunctionError) -> String? {
        switch object[name] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        case let other?: throw .invalidArgument("'\(name)' must be a string, not \(other.kindName)", field: name)
        }
    }

    /// An object of strings that may be absent (or `null`).
    public func optionalStringMap(_ name: String) throws(FunctionError) -> [String: String]? {
        switch object[name] {
        case nil, .null?: return nil
        case .object(let members)?:
            var strings: [String: String] = [:]
            for (key, value) in members {
                guard case .string(let text) = value else {
                    throw .invalidArgument("'\(name).\(key)' must be a string, not \(value.kindName)", field: name)
                }
                strings[key] = text
            }
            return strings
        case let other?:
            throw .invalidArgument("'\(name)' must be an object of strings, not \(other.kindName)", field: name)
        }
    }

    /// A whole number from 0 to 2^53 given as a JSON number or as a string of decimal
    /// digits (clients of the production gateway send either); anything else counts
    /// as absent, as production ignores it.
    public func lenientCount(_ name: String) -> Int? {
        switch object[name] {
        case .number(let value)?:
            return value >= 0 && value <= 9_007_199_254_740_992 && value.rounded() == value ? Int(value) : nil
        case .string(let text)?:
            guard (1...16).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
                return nil
            }
            return Int(text)
        default:
            return nil
        }
    }

    /// A boolean field that may be absent (or `null`).
    public func optionalBool(_ name: String) throws(FunctionError) -> Bool? {
        switch object[name] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        case let other?: throw .invalidArgument("'\(name)' must be a boolean, not \(other.kindName)", field: name)
        }
    }
}
