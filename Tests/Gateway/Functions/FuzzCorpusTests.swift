import Foundation
import PushgateFuzzing
import Testing

/// The fuzzers' committed corpora (Fuzz/Corpus/) replayed through their checks on
/// every test run, without libFuzzer: an input that once broke a property (kept
/// there once fixed) stays a regression test.
@Suite("Fuzz corpus replay")
struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus")

    static func inputs(_ target: String) throws -> [[UInt8]] {
        let directory = corpus.appendingPathComponent(target)
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted().map {
            Array(try Data(contentsOf: directory.appendingPathComponent($0)))
        }
    }

    @Test(
        "every committed input keeps its target's properties",
        arguments: [
            "FuzzRequests", "FuzzPreview", "FuzzPayloads", "FuzzJSON", "FuzzDumps", "FuzzTimes", "FuzzHooks",
            "FuzzFrames", "FuzzEnvFiles", "FuzzWebPush",
        ])
    func replay(target: String) throws {
        let inputs = try Self.inputs(target)
        #expect(inputs.count >= 5, "a corpus to start from")
        let check: ([UInt8]) -> Void =
            switch target {
            case "FuzzRequests": RequestFuzzing.check
            case "FuzzPreview": PreviewFuzzing.check
            case "FuzzJSON": JSONFuzzing.check
            case "FuzzDumps": DumpFuzzing.check
            case "FuzzTimes": TimeFuzzing.check
            case "FuzzHooks": HookFuzzing.check
            case "FuzzFrames": FrameFuzzing.check
            case "FuzzEnvFiles": EnvironmentFileFuzzing.check
            case "FuzzWebPush": WebPushFuzzing.check
            default: PayloadFuzzing.check
            }
        for input in inputs { check(input) }
    }
}
