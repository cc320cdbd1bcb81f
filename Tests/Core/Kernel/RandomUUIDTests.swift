import Foundation
import PushgateCore
import Testing

@Suite("Random UUIDs")
struct RandomUUIDTests {
    @Test(
        "random version-4 UUIDs in lower-case canonical form, never the same, one at a time or many (past a call's 16)",
        arguments: [1, 16, 17, 1000])
    func shape(batch: Int) throws {
        var seen = Set<String>()
        var ids: [String] = []
        while ids.count < 1000 {
            let made = batch == 1 ? [RandomUUID.make()] : RandomUUID.make(count: batch)
            #expect(made.count == batch)
            ids += made
        }
        for id in ids.prefix(1000) {
            let uuid = try #require(UUID(uuidString: id))
            #expect(id == uuid.uuidString.lowercased())
            #expect(Array(id)[14] == "4")
            #expect("89ab".contains(Array(id)[19]))
            seen.insert(id)
        }
        #expect(seen.count == 1000)
    }
}
