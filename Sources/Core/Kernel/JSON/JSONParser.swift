/// RFC 8259 JSON text read straight into ``JSONValue``.
///
/// Foundation's `JSONDecoder` reaches a `JSONValue` through `Codable`, trying each
/// kind in turn and building a `DecodingError` for every miss: a string cost two
/// thrown errors. That made parsing stored documents about a seventh of a
/// registration's CPU. This parser accepts what `JSONDecoder` accepts (a test and
/// a fuzz target compare the two): any value at the top level, after a byte order
/// mark if there is one; the six escapes and `\u` with surrogate pairs; numbers
/// that fit a `Double` (neither overflow nor underflow to zero); a comma before a
/// closing bracket; at most 512 levels of nesting; a repeated key keeps its first
/// value.
struct JSONParser: ~Copyable {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0
    /// Set when a string holds invalid UTF-8, which decides the error.
    private var invalidUTF8 = false

    static let maxDepth = 512

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONValue {
        try whole(bytes) { (parser) throws(ParseFailure) in try parser.value() }
    }

    /// A top-level object's fields named in `names` (`nil` when the text is not an
    /// object). The other fields are checked as ``parse(_:)`` checks them, so that
    /// the same text is refused, but no value of theirs is built: a fan-out page
    /// reads a few fields of each device's document.
    static func parseFields(_ bytes: UnsafeBufferPointer<UInt8>, named names: [String]) throws(JSONParseError)
        -> [String: JSONValue]?
    {
        try whole(bytes) { (parser) throws(ParseFailure) in
            guard parser.next == UInt8(ascii: "{") else {
                parser.discarding = true
                _ = try parser.value()
                return nil
            }
            return try parser.objectFields(keeping: names)
        }
    }

    /// `read` over the whole text: after a byte order mark if there is one, with
    /// nothing but whitespace around what it reads.
    private static func whole<Value>(
        _ bytes: UnsafeBufferPointer<UInt8>, _ read: (inout JSONParser) throws(ParseFailure) -> Value
    ) throws(JSONParseError) -> Value {
        var parser = JSONParser(bytes)
        do throws(ParseFailure) {
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
            parser.skipWhitespace()
            let value = try read(&parser)
            parser.skipWhitespace()
            guard parser.index == bytes.count else { throw ParseFailure() }
            return value
        } catch {
            // Text that is not UTF-8 is reported as such wherever the bytes were.
            if parser.invalidUTF8 || String(validating: bytes, as: UTF8.self) == nil { throw .invalidUTF8 }
            throw .invalidJSON
        }
    }

    /// Set while a value is read only to be checked: strings, objects and arrays
    /// are read through, none of them built.
    private var discarding = false

    /// Why the text is refused is decided once, at the top.
    private struct ParseFailure: Error {}

    private var next: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = next, byte == .space || byte == .tab || byte == .lineFeed || byte == .carriageReturn {
            index += 1
        }
    }

    private mutating func value() throws(ParseFailure) -> JSONValue {
        guard let byte = next else { throw ParseFailure() }
        switch byte {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw ParseFailure()
        }
    }

    private mutating func object() throws(ParseFailure) -> JSONValue {
        .object(try objectFields(keeping: nil))
    }

    /// An object's fields, or those named in `names` (the others checked, not built).
    private mutating func objectFields(keeping names: [String]?) throws(ParseFailure) -> [String: JSONValue] {
        try enter()
        var fields: [String: JSONValue] = [:]
        if let names { fields.reserveCapacity(names.count) }
        skipWhitespace()
        if next == UInt8(ascii: "}") {
            index += 1
        } else {
            while true {
                guard next == UInt8(ascii: "\"") else { throw ParseFailure() }
                let key = try string()
                skipWhitespace()
                try expect(UInt8(ascii: ":"))
                skipWhitespace()
                if discarding || names.map({ !$0.contains(key) }) ?? false {
                    let outer = discarding
                    discarding = true
                    _ = try value()
                    discarding = outer
                } else {
                    let value = try value()
                    if fields[key] == nil { fields[key] = value }
                }
                skipWhitespace()
                if try separatorEnds(UInt8(ascii: "}")) { break }
            }
        }
        depth -= 1
        return fields
    }

    private mutating func array() throws(ParseFailure) -> JSONValue {
        try enter()
        var elements: [JSONValue] = []
        skipWhitespace()
        if next == UInt8(ascii: "]") {
            index += 1
        } else {
            while true {
                let element = try value()
                if !discarding { elements.append(element) }
                skipWhitespace()
                if try separatorEnds(UInt8(ascii: "]")) { break }
            }
        }
        depth -= 1
        return .array(elements)
    }

    /// Steps into an object or array, past its opening byte.
    private mutating func enter() throws(ParseFailure) {
        depth += 1
        guard depth <= Self.maxDepth else { throw ParseFailure() }
        index += 1
    }

    /// After an element: `true` at the closing byte (a comma may come before it),
    /// `false` after a comma that another element follows.
    private mutating func separatorEnds(_ closing: UInt8) throws(ParseFailure) -> Bool {
        guard let byte = next else { throw ParseFailure() }
        index += 1
        if byte == closing { return true }
        guard byte == UInt8(ascii: ",") else { throw ParseFailure() }
        skipWhitespace()
        guard next == closing else { return false }
        index += 1
        return true
    }

    private mutating func expect(_ byte: UInt8) throws(ParseFailure) {
        guard next == byte else { throw ParseFailure() }
        index += 1
    }

    private mutating func literal(_ text: StaticString) throws(ParseFailure) {
        let count = text.utf8CodeUnitCount
        guard bytes.count - index >= count,
            UnsafeBufferPointer(rebasing: bytes[index..<index + count]).elementsEqual(
                UnsafeBufferPointer(start: text.utf8Start, count: count))
        else { throw ParseFailure() }
        index += count
    }

    /// A string, from its opening quote. Text without escapes is copied whole.
    private mutating func string() throws(ParseFailure) -> String {
        index += 1
        let start = index
        var ascii = true
        while let byte = next {
            switch byte {
            case UInt8(ascii: "\""):
                let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                guard !(discarding && ascii) else { return "" }
                return try makeString(text, ascii: ascii)
            case UInt8(ascii: "\\"):
                return try escapedString(from: start)
            case ..<0x20:
                throw ParseFailure()
            default:
                ascii = ascii && byte < 0x80
                index += 1
            }
        }
        throw ParseFailure()
    }

    /// The rest of a string that holds an escape, `index` at its first backslash.
    private mutating func escapedString(from start: Int) throws(ParseFailure) -> String {
        var utf8 = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while let byte = next {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return try utf8.withUnsafeBufferPointer { (text) throws(ParseFailure) in
                    try makeString(text, ascii: false)
                }
            case UInt8(ascii: "\\"):
                try unescape(into: &utf8)
            case ..<0x20:
                throw ParseFailure()
            default:
                utf8.append(byte)
            }
        }
        throw ParseFailure()
    }

    private mutating func makeString(_ text: UnsafeBufferPointer<UInt8>, ascii: Bool) throws(ParseFailure) -> String {
        if ascii { return String(decoding: text, as: UTF8.self) }
        guard let string = String(validating: text, as: UTF8.self) else {
            invalidUTF8 = true
            throw ParseFailure()
        }
        return string
    }

    /// One escape, `index` just after its backslash.
    private mutating func unescape(into utf8: inout [UInt8]) throws(ParseFailure) {
        guard let byte = next else { throw ParseFailure() }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(.lineFeed)
        case UInt8(ascii: "r"): utf8.append(.carriageReturn)
        case UInt8(ascii: "t"): utf8.append(.tab)
        case UInt8(ascii: "u"):
            var code = try hexQuad()
            switch code {
            case 0xD800...0xDBFF:
                // A high surrogate must be followed by an escaped low one.
                try expect(UInt8(ascii: "\\"))
                try expect(UInt8(ascii: "u"))
                let low = try hexQuad()
                guard (0xDC00...0xDFFF).contains(low) else { throw ParseFailure() }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            case 0xDC00...0xDFFF:
                throw ParseFailure()
            default:
                break
            }
            guard let scalar = Unicode.Scalar(code) else { throw ParseFailure() }
            utf8.append(contentsOf: scalar.utf8)
        default:
            throw ParseFailure()
        }
    }

    private mutating func hexQuad() throws(ParseFailure) -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = next else { throw ParseFailure() }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw ParseFailure()
            }
            code = code << 4 | UInt32(digit)
            index += 1
        }
        return code
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, as a finite `Double` that
    /// is zero only when its digits are.
    private mutating func number() throws(ParseFailure) -> Double {
        let start = index
        var nonZeroDigit = false
        if next == UInt8(ascii: "-") { index += 1 }
        guard let first = next else { throw ParseFailure() }
        switch first {
        case UInt8(ascii: "0"): index += 1
        case UInt8(ascii: "1")...UInt8(ascii: "9"):
            nonZeroDigit = true
            skipDigits()
        default: throw ParseFailure()
        }
        if next == UInt8(ascii: ".") {
            index += 1
            let fraction = index
            guard skipsDigits() else { throw ParseFailure() }
            nonZeroDigit = nonZeroDigit || bytes[fraction..<index].contains { $0 != UInt8(ascii: "0") }
        }
        if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            index += 1
            if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { index += 1 }
            guard skipsDigits() else { throw ParseFailure() }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let number = Double(text), number.isFinite, number != 0 || !nonZeroDigit else { throw ParseFailure() }
        return number
    }

    private mutating func skipDigits() {
        while let byte = next, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
    }

    /// Skips digits; `false` when there was none.
    private mutating func skipsDigits() -> Bool {
        let start = index
        skipDigits()
        return index > start
    }
}

extension UInt8 {
    fileprivate static let space = UInt8(ascii: " ")
    fileprivate static let tab = UInt8(ascii: "\t")
    fileprivate static let lineFeed = UInt8(ascii: "\n")
    fileprivate static let carriageReturn = UInt8(ascii: "\r")
}
