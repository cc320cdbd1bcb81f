import Foundation
import PushgateTesting

/// A ``TemporaryDirectory`` removed once nothing refers to it. A suite keeps one per
/// instance, which Swift Testing makes for each test (a struct suite has no
/// `deinit` of its own), so a run leaves nothing behind in the temporary directory.
final class ScratchDirectory: Sendable {
    private let directory: TemporaryDirectory
    var url: URL { directory.url }

    init(_ name: String) throws {
        directory = try TemporaryDirectory(name: name)
    }

    deinit { directory.remove() }
}
