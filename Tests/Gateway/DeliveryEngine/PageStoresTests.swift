import NIOConcurrencyHelpers
import Testing

@testable import PushgateDelivery

@Suite("Page stores: an expansion's pages stored in order, those ready together")
struct PageStoresTests {
    @Test("a page is stored after every page before it, whatever order their tries end in")
    func inOrder() async throws {
        let written = Writes()
        let stores = PageStores<Int> { pages in await written.append(pages) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for page in [3, 1, 2] {
                group.addTask {
                    let stored = try await stores.store(page, number: page)
                    #expect(stored)
                }
            }
            // The later pages' tries ended first: each waits for the one before it.
            while await written.waitingCount(stores) < 3 { await Task.yield() }
            group.addTask {
                let stored = try await stores.store(0, number: 0)
                #expect(stored)
            }
            try await group.waitForAll()
        }
        #expect(await written.runs.flatMap { $0 } == [0, 1, 2, 3])
        #expect(await written.runs.count == 1, "0 came last: the others waited for it, and went in with it")
        #expect(!stores.broken)
    }

    @Test("the pages ready while a write is out go in the next write, together")
    func runs() async throws {
        let written = Writes()
        let firstWrite = Gate()
        let stores = PageStores<Int> { pages in
            if pages == [0] { await firstWrite.wait() }
            return await written.append(pages)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let stored = try await stores.store(0, number: 0)
                #expect(stored)
            }
            await written.waitUntilWriting(stores)
            for page in 1...3 {
                group.addTask {
                    let stored = try await stores.store(page, number: page)
                    #expect(stored)
                }
            }
            // Every later page waits before the first write ends.
            while await written.waitingCount(stores) < 3 { await Task.yield() }
            await firstWrite.open()
            try await group.waitForAll()
        }
        #expect(await written.runs == [[0], [1, 2, 3]])
    }

    @Test("a page not stored breaks the stores: no later page is stored")
    func broken() async throws {
        let written = Writes()
        let stores = PageStores<Int> { pages in
            guard pages != [1] else { return false }  // the expansion lost
            return await written.append(pages)
        }
        #expect(try await stores.store(0, number: 0))
        #expect(try await !stores.store(1, number: 1))
        #expect(stores.broken)
        #expect(try await !stores.store(2, number: 2))
        #expect(try await !stores.store(nil, number: 3))
        #expect(try await !stores.store(4, number: 4), "broken for good")
        #expect(await written.runs == [[0]])
    }

    @Test("a page whose try failed ends the run before it and is not stored, nor what follows")
    func failedPage() async throws {
        let written = Writes()
        let stores = PageStores<Int> { pages in await written.append(pages) }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { try await stores.store(nil, number: 2) }
            group.addTask { try await stores.store(3, number: 3) }
            group.addTask { try await stores.store(1, number: 1) }
            while await written.waitingCount(stores) < 3 { await Task.yield() }
            #expect(try await stores.store(0, number: 0))
            var stored = 0
            for try await result in group where result { stored += 1 }
            #expect(stored == 1, "page 1 only")
        }
        #expect(await written.runs == [[0, 1]])
        #expect(stores.broken)
    }

    @Test("a write's error reaches every page of its run")
    func writeError() async throws {
        struct Refused: Error {}
        let stores = PageStores<Int> { _ in throw Refused() }
        await #expect(throws: Refused.self) { try await stores.store(0, number: 0) }
        #expect(stores.broken)
        #expect(try await !stores.store(1, number: 1))
    }
}

/// The runs written, in order.
private actor Writes {
    var runs: [[Int]] = []

    func append(_ pages: [Int]) -> Bool {
        runs.append(pages)
        return true
    }

    func waitUntilWriting(_ stores: PageStores<Int>) async {
        while !stores.isWriting { await Task.yield() }
    }

    func waitingCount(_ stores: PageStores<Int>) -> Int { stores.waitingCount }
}

/// Holds a write until opened.
private actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        guard !isOpen else { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}

extension PageStores {
    /// Whether a run is being written.
    var isWriting: Bool { state.withLockedValue { $0.writing } }

    /// How many pages wait for their turn.
    var waitingCount: Int { state.withLockedValue { $0.waiting.values.count { $0.continuation != nil } } }
}
