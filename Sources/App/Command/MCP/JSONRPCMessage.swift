import PushgateCore

/// One line from the client, read as JSON-RPC 2.0: a request (an id: a string or a
/// number), a notification (no id), or a response (the server asks the client nothing:
/// ignored). `params`, when present, must be an object.
enum JSONRPCMessage: Sendable, Equatable {
    case request(id: JSONValue, method: String, params: [String: JSONValue])
    case notification(method: String, params: [String: JSONValue])
    case response

    /// Why a line is no message: the error, and the id to answer it under (`null` when
    /// none could be read).
    struct Unreadable: Error, Equatable {
        let error: JSONRPCError
        let id: JSONValue
    }

    init(line: [UInt8]) throws(Unreadable) {
        guard let parsed = try? JSONValue.parse(line) else {
            throw Unreadable(error: .parseError("not JSON"), id: .null)
        }
        guard let object = parsed.objectValue, object["jsonrpc"] == "2.0" else {
            throw Unreadable(error: .invalidRequest("not a JSON-RPC 2.0 object"), id: .null)
        }
        let id = object["id"]
        switch id {
        case nil, .string?, .number?: break
        default: throw Unreadable(error: .invalidRequest("an id is a string or a number"), id: .null)
        }
        guard let method = object["method"] else {
            // A client's answer to a request the server never sends.
            guard object["result"] != nil || object["error"] != nil else {
                throw Unreadable(error: .invalidRequest("no method"), id: id ?? .null)
            }
            self = .response
            return
        }
        guard let method = method.stringValue else {
            throw Unreadable(error: .invalidRequest("'method' is not a string"), id: id ?? .null)
        }
        let params: [String: JSONValue]
        switch object["params"] {
        case nil: params = [:]
        case .object(let fields)?: params = fields
        default: throw Unreadable(error: .invalidParams("'params' must be an object"), id: id ?? .null)
        }
        if let id {
            self = .request(id: id, method: method, params: params)
        } else {
            self = .notification(method: method, params: params)
        }
    }
}
