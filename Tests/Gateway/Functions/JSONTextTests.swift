import Foundation
import PushgateCore
import PushgateFuzzing
import Testing

/// Pushgate's JSON parser takes what Foundation's `JSONDecoder` took, and refuses
/// what it refused for the same reason (``JSONFuzzing``; `scripts/fuzz` explores
/// further); its writer writes what `JSONEncoder` wrote.
@Suite("JSON parser and writer")
struct JSONTextTests {
    @Test(
        "the same answer as JSONDecoder",
        arguments: [
            "{}", "[]", "null", "true", "false", "0", "-0", "1", "-12.5e3", "1E+2", "1e-7", "0.1",
            "123456789012345678901234567890", "1e308", "1e400", "-1e400", "2.5e-400",
            #""""#, #""a""#, #""\"\\\/\b\f\n\r\t""#, #""\u00e9\u20ac""#, #""\ud83d\ude80""#, #""\uD83D\uDE80""#,
            #""\u0000""#, #""rocket 🚀 é""#, #"{"a":1,"a":2}"#, #"{"a":{"b":[1,{"c":null}]}}"#,
            " \t\r\n[ 1 , 2 ] \n", #"{ "k" : "v" }"#,
            // Refused.
            "", " ", "[", "]", "{", "[1,]", "[,1]", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{a:1}", "{'a':1}",
            "01", "-", "1.", ".5", "+1", "1e", "1e+", "0x10", "NaN", "Infinity", "tru", "nul", "True",
            #""\ud800""#, #""\udc00""#, #""\ud800\u0041""#, #""\ud800x""#, #""\x""#, #""\u12""#, #""\u12G4""#,
            "\"a\tb\"", "\"a\nb\"", "\"unterminated", "[1] [2]", "1 2", "//c\n1", "[1]/*c*/",
            "\u{FEFF}[1]", "\u{FEFF}", "\u{00A0}1", "[1,,]", "[,]", "{,}", "[1 , ]", "5e-324", "0.000", "0E0", "0.0e5",
            "0.5e1", "10e-1", "0e-5", "1e-400",
        ]
    )
    func sameAsFoundation(text: String) {
        let bytes = Array(text.utf8)
        let parsed = Result { () throws(JSONParseError) in try JSONValue.parse(bytes) }
        #expect(parsed == JSONFuzzing.referenceParse(bytes), "\(text.debugDescription)")
    }

    @Test(
        "a zero with an exponent is 0, though JSONDecoder refuses some",
        arguments: ["0e5", "0e1", "0.00e3", "[0E9]"]
    )
    func zeroWithExponent(text: String) throws {
        let bytes = Array(text.utf8)
        #expect(JSONFuzzing.referenceParse(bytes) == .failure(.invalidJSON))
        #expect(JSONFuzzing.foundationRefusesZero(in: bytes))
        let value = try JSONValue.parse(bytes)
        #expect(value == 0 || value == [0])
    }

    @Test("bytes that are not UTF-8 are told from JSON that is not valid")
    func notUTF8() {
        for bytes: [UInt8] in [
            [0x22, 0xFF, 0x22], [0xC3, 0x28], [0x5B, 0x31, 0x5D, 0x80], [0x22, 0xED, 0xA0, 0x80, 0x22],
        ] {
            #expect(throws: JSONParseError.invalidUTF8) { try JSONValue.parse(bytes) }
            #expect(JSONFuzzing.referenceParse(bytes) == .failure(.invalidUTF8))
        }
        #expect(throws: JSONParseError.invalidJSON) { try JSONValue.parse(Array("[1,".utf8)) }
    }

    @Test("nesting: 512 levels parse, 513 are refused, as JSONDecoder does")
    func nesting() {
        for depth in [1, 511, 512, 513, 5000] {
            let bytes = Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
            let parsed = Result { () throws(JSONParseError) in try JSONValue.parse(bytes) }
            #expect(parsed == JSONFuzzing.referenceParse(bytes), "depth \(depth)")
        }
    }

    @Test("thousands of random texts made from JSON's pieces give the same answer as JSONDecoder")
    func randomTexts() {
        var generator = SeededGenerator(seed: 18)
        let pieces = [
            "{", "}", "[", "]", ",", ":", " ", "\"", "\"k\"", "\"v\"", "\\", "\\u", "00e9", "d83d", "\\ude80", "1",
            "-", "0", ".", "5", "e", "E", "+", "true", "false", "null", "é", "\t", "\n",
        ]
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 1...12, using: &generator)).map { _ in
                pieces.randomElement(using: &generator)!
            }.joined()
            let bytes = Array(text.utf8)
            let parsed = Result { () throws(JSONParseError) in try JSONValue.parse(bytes) }
            #expect(parsed == JSONFuzzing.referenceParse(bytes), "\(text.debugDescription)")
        }
    }

    @Test(
        "a masked parse takes and refuses what a whole parse does, and keeps the named fields only",
        arguments: [
            #"{"a":1,"b":"a value longer than fifteen bytes","apnsToken":"x","a":2}"#,
            #"{"b":{"c":[1,{"d":"é 🚀","e":[]}]},"a":{"b":"kept whole"}}"#, #"{}"#, #"{"":0,"b":null}"#,
            #"{"b":"\u00e9\ud83d\ude80","a":"\n"}"#, "[1]", "5", #""a""#, "null", " {\"a\" : true } ",
            // Refused, in a field that is not kept as anywhere else.
            #"{"b":"\ud800"}"#, #"{"b":1.}"#, #"{"b":[1,,2]}"#, #"{"b":{"c"}}"#, "{\"b\":\"a\tb\"}", #"{"b":01}"#,
            #"{"b":1e400}"#, "{\"a\":1", #"{"a":1}x"#, "{", "",
        ]
            + [256, 512].map { String(repeating: "{\"b\":", count: $0) + "0" + String(repeating: "}", count: $0) }
    )
    func maskedParse(text: String) {
        checkMaskedParse(Array(text.utf8), text.debugDescription)
    }

    @Test("a masked parse tells bytes that are not UTF-8 in a field not kept from JSON that is not valid")
    func maskedParseNotUTF8() {
        checkMaskedParse([0x7B, 0x22, 0x62, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D], "a value not UTF-8")
        checkMaskedParse([0x7B, 0x22, 0xC3, 0x28, 0x22, 0x3A, 0x31, 0x7D], "a key not UTF-8")
    }

    @Test("thousands of random objects: a masked parse agrees with a whole parse")
    func maskedParseRandomTexts() {
        var generator = SeededGenerator(seed: 48)
        let pieces = [
            "{", "}", "[", "]", ",", ":", " ", "\"", "\"a\"", "\"b\"", "\"a\":", "\"b\":", "\\", "\\u", "00e9", "d83d",
            "\\ude80", "1", "-", "0", ".", "5", "e", "true", "null", "é", "\t",
        ]
        for _ in 0..<20_000 {
            let text =
                "{"
                + (0..<Int.random(in: 1...12, using: &generator)).map { _ in
                    pieces.randomElement(using: &generator)!
                }.joined()
            checkMaskedParse(Array(text.utf8), text.debugDescription)
        }
    }

    /// What `parseFields` gives for `bytes` against what `parse` gives, filtered.
    private func checkMaskedParse(_ bytes: [UInt8], _ label: String) {
        let names = ["a", "apnsToken", ""]
        let masked = bytes.withUnsafeBufferPointer { text in
            Result { () throws(JSONParseError) in try JSONValue.parseFields(of: text, named: names) }
        }
        let whole = Result { () throws(JSONParseError) in try JSONValue.parse(bytes) }.map { value in
            value.objectValue.map { fields in fields.filter { names.contains($0.key) } }
        }
        #expect(masked == whole, "\(label)")
    }

    @Test("values are written as the same bytes as JSONEncoder with sorted keys wrote them")
    func sameBytesAsFoundation() throws {
        var generator = SeededGenerator(seed: 24)
        let numbers: [Double] = [
            0, -0.0, 1, -1, 0.1, 1.5, 100, 1e15, 1e16, 1e21, 1e-7, 1e-6, 5e-324, 1e300, 12_345_678.9,
            9_007_199_254_740_993, 123_456_789_012_345_680_000, .pi,
        ]
        let strings = [
            "", "a/b", "quote \" backslash \\", "\u{0}\u{1}\u{8}\u{9}\u{a}\u{c}\u{d}\u{1f}\u{7f}", "é 🚀 \u{2028}",
        ]
        let keys = ["a", "B", "_", "aa", "b", "é", "Z9", "", "🚀", "e\u{301}"]
        func randomValue(_ depth: Int) -> JSONValue {
            switch Int.random(in: 0...(depth > 3 ? 3 : 5), using: &generator) {
            case 0: return [.null, true, false].randomElement(using: &generator)!
            case 1:
                return .number(
                    numbers.randomElement(using: &generator)! * Double(Int.random(in: -3...3, using: &generator)))
            case 2: return .number(Double.random(in: -1e6...1e6, using: &generator))
            case 3: return .string(strings.randomElement(using: &generator)!)
            case 4: return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in randomValue(depth + 1) })
            default:
                var fields: [String: JSONValue] = [:]
                for _ in 0..<Int.random(in: 0...5, using: &generator) {
                    fields[keys.randomElement(using: &generator)!] = randomValue(depth + 1)
                }
                return .object(fields)
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for _ in 0..<5_000 {
            let value = randomValue(0)
            let expected = String(decoding: try encoder.encode(value), as: UTF8.self)
            #expect(String(decoding: try value.encodedData(), as: UTF8.self) == expected)
        }
        #expect(throws: JSONWriter.NonFiniteNumber.self) { try JSONValue.number(.infinity).encodedData() }
    }

    @Test("every JSONValue survives encoding and parsing unchanged")
    func roundTrip() throws {
        let value: JSONValue = [
            "string": "quote \" backslash \\ tab \t nul \u{0} rocket 🚀", "number": .number(3.25), "integer": 42,
            "negative": .number(-1e-7), "list": [true, false, nil, [:], []], "object": ["nested": ["deep": "é"]],
        ]
        #expect(try JSONValue.parse(Array(value.encodedData())) == value)
    }
}

/// SplitMix64: the same texts on every run.
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
