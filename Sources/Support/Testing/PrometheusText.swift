import Foundation

/// Prometheus's text exposition format, read back: one sample per line,
/// `name{label="value",…} number`, comments skipped.
public struct PrometheusText: Sendable {
    public struct Sample: Sendable {
        public let name: String
        public let labels: [String: String]
        public let value: Double
    }

    /// A line that is not a sample.
    public struct Malformed: Error, CustomStringConvertible {
        public let description: String
    }

    public let samples: [Sample]

    public init(_ text: String) throws {
        samples = try text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let nameEnd = line.firstIndex { $0 == "{" || $0 == " " } ?? line.endIndex
            var labels: [String: String] = [:]
            var rest = line[nameEnd...]
            if rest.hasPrefix("{") {
                guard let close = rest.firstIndex(of: "}") else { throw Malformed(description: "\(line)") }
                for pair in rest[rest.index(after: rest.startIndex)..<close].split(separator: ",") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2 else { throw Malformed(description: "\(line)") }
                    labels[String(parts[0])] = String(parts[1].dropFirst().dropLast())
                }
                rest = rest[rest.index(after: close)...]
            }
            guard let value = Double(rest.trimmingCharacters(in: .whitespaces)) else {
                throw Malformed(description: "\(line)")
            }
            return Sample(name: String(line[..<nameEnd]), labels: labels, value: value)
        }
    }

    /// The value of the one sample with this name and exactly these labels (`le`
    /// aside when not asked for), or `nil`.
    public subscript(name: String, labels: [String: String]) -> Double? {
        samples.first { sample in
            sample.name == name
                && (labels["le"] == nil ? sample.labels.filter { $0.key != "le" } : sample.labels) == labels
        }?.value
    }
}
