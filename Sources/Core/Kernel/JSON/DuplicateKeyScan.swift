/// Finds an object key that appears twice in one object of JSON text.
///
/// `JSONDecoder` keeps one of two equal keys without saying so, so `{"cwd": "/a",
/// "cwd": "/b"}` would mean whatever the decoder picked — and a proxy in front may
/// have read the other one. Requests with repeated keys are refused instead. Keys
/// are compared after their escapes are read (`"a"` and `"\u0061"` are the same key).
public enum DuplicateKeyScan {
    /// The first repeated key, or `nil`. Expects text that already parsed as JSON.
    public static func firstDuplicate(in bytes: some Collection<UInt8>) -> String? {
        let bytes = Array(bytes)
        // One entry per open container: the keys seen so far, or nil for an array.
        var open: [Set<String>?] = []
        var expectingKey = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"):
                open.append([])
                expectingKey = true
            case UInt8(ascii: "["):
                open.append(nil)
                expectingKey = false
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = open.popLast()
                expectingKey = false
            case UInt8(ascii: ","):
                expectingKey = open.last.map { $0 != nil } ?? false
            case UInt8(ascii: "\""):
                let end = endOfString(in: bytes, openingQuote: index)
                if expectingKey, var keys = open.last.flatMap({ $0 }) {
                    let key = text(of: bytes[index...end])
                    if !keys.insert(key).inserted { return key }
                    open[open.count - 1] = keys
                }
                expectingKey = false
                index = end
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// The index of the quote that closes the string opened at `openingQuote`.
    private static func endOfString(in bytes: [UInt8], openingQuote: Int) -> Int {
        var index = openingQuote + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index
            default: index += 1
            }
        }
        return bytes.count - 1
    }

    /// A JSON string literal's text; escapes are read by the parser, the rare case.
    private static func text(of literal: ArraySlice<UInt8>) -> String {
        let inner = literal.dropFirst().dropLast()
        if !inner.contains(UInt8(ascii: "\\")) { return String(decoding: inner, as: UTF8.self) }
        return (try? JSONValue.parse(literal))?.stringValue ?? String(decoding: inner, as: UTF8.self)
    }
}
