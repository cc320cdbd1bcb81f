import Foundation

/// A test's own directory under the system's temporary directory
/// (`pushgate-<name>-<UUID>`), removed with everything in it once nothing refers to
/// it. A suite keeps one per instance, which Swift Testing makes for each test, so a
/// run leaves nothing behind in the temporary directory.
final class ScratchDirectory: Sendable {
    let url: URL

    init(_ name: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("pushgate-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
