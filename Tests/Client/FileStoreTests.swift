import Foundation
import PushgateClient
import Testing

@Suite("The store on Linux: one JSON file only its owner reads, replaced whole")
struct FileStoreTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pushgate-client-\(UUID().uuidString)")

    @Test("values kept across instances, the file 0600 in a folder made 0700")
    func roundTrip() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("nested/push.json").path
        let store = FileStore(path: path)
        #expect(try store.string(forKey: "push_installation_id") == nil)
        try store.set("abc", forKey: "push_installation_id")
        try store.set("s3cret", forKey: "push_secret_home")
        try store.removeValue(forKey: "missing")
        let again = FileStore(path: path)
        #expect(try again.string(forKey: "push_secret_home") == "s3cret")
        #expect(Set(try again.keys()) == ["push_installation_id", "push_secret_home"])
        try again.removeValue(forKey: "push_secret_home")
        #expect(try store.string(forKey: "push_secret_home") == nil)

        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let folderAttributes = try FileManager.default.attributesOfItem(
            atPath: folder.appendingPathComponent("nested").path)
        #expect((folderAttributes[.posixPermissions] as? Int) == 0o700)
        let leftovers = try FileManager.default.contentsOfDirectory(
            atPath: folder.appendingPathComponent("nested").path)
        #expect(leftovers == ["push.json"], "no temporary file left behind")
    }

    @Test("a file that is not such a store is an error, not an empty store to overwrite")
    func foreignFile() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("push.json").path
        try Data("[1,2".utf8).write(to: URL(fileURLWithPath: path))
        let store = FileStore(path: path)
        #expect(throws: FileStore.Unreadable.self) { try store.set("x", forKey: "k") }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "[1,2", "left as it was")
    }
}
