import Testing

@testable import PushgateDelivery
@testable import PushgateFunctions

@Suite("Page turns: an expansion's pages stored in order")
struct PageTurnsTests {
    @Test("a page waits for every page before it, whatever order their tries end in")
    func inOrder() async {
        let turns = PageTurns()
        let ended = EndedPages()
        await withTaskGroup(of: Void.self) { group in
            for page in [3, 1, 2, 0] {
                group.addTask {
                    #expect(await turns.wait(for: page))
                    await ended.append(page)
                    turns.end(page, stored: true)
                }
            }
        }
        #expect(await ended.pages == [0, 1, 2, 3])
        #expect(!turns.broken)
    }

    @Test("a page not stored breaks the turns: no later page may be stored")
    func broken() async {
        let turns = PageTurns()
        #expect(await turns.wait(for: 0))
        turns.end(0, stored: true)
        #expect(await turns.wait(for: 1))
        turns.end(1, stored: false)
        #expect(turns.broken)
        #expect(await !turns.wait(for: 2))
        turns.end(2, stored: true)
        #expect(await !turns.wait(for: 3), "broken for good")
    }
}

/// The pages in the order their turns came.
private actor EndedPages {
    var pages: [Int] = []

    func append(_ page: Int) { pages.append(page) }
}
