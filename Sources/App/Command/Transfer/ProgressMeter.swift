import Foundation
import PushgateCore

/// Progress of a long export or import on standard error: a bar redrawn in place on
/// a terminal (when the total is known, else a running count), a line every five
/// seconds otherwise (a log, a cron mail).
final class ProgressMeter {
    private let label: String
    private let total: Int64?
    private let unit: String
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private let started = Date()
    /// When the progress was last shown: the start, so that a short run shows none.
    private lazy var lastDrawn = started
    private var drewBar = false

    /// `total`: how many units the work has (bytes of a file, documents of a store), if known.
    init(label: String, total: Int64?, unit: String) {
        self.label = label
        self.total = total.flatMap { $0 > 0 ? $0 : nil }
        self.unit = unit
    }

    /// `done` units of `total` so far; `records` handled.
    func update(done: Int64, records: Int) {
        let now = Date()
        guard now.timeIntervalSince(lastDrawn) >= (isTerminal ? 0.1 : 5) else { return }
        lastDrawn = now
        let rate = Double(records) / max(now.timeIntervalSince(started), 0.001)
        let counts = "\(records.formatted()) records, \(Int(rate).formatted())/s"
        if isTerminal {
            var text = "\r\(label) "
            if let total {
                let fraction = min(Double(done) / Double(total), 1)
                let filled = Int(fraction * 30)
                text += "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: 30 - filled)
                text += "] \(Int(fraction * 100))% "
            }
            write(text + counts + "\u{1B}[K")
            drewBar = true
        } else {
            let share = total.map { " (\(min(Int(Double(done) / Double($0) * 100), 100))% of the \(unit))" } ?? ""
            write("\(label): \(counts)\(share)\n")
        }
    }

    /// Clears the bar, so the summary line starts on a clean line.
    func finish() {
        if drewBar { write("\r\u{1B}[K") }
    }

    private func write(_ text: String) {
        StandardError.write(text)
    }
}
