import Foundation
import PushgateCore
import Testing

@Suite("Random UUIDs")
struct RandomUUIDTests {
    @Test("random version-4 UUIDs in lower-case canonical form, never the same")
    func shape() throws {
        var seen = Set<String>()
        for _ in 0..<1000 {
            let id = RandomUUID.make()
            let uuid = try #require(UUID(uuidString: id))
            #expect(id == uuid.uuidString.lowercased())
            #expect(Array(id)[14] == "4")
            #expect("89ab".contains(Array(id)[19]))
            seen.insert(id)
        }
        #expect(seen.count == 1000)
    }
}
