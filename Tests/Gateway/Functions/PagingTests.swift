import PushgateCore
import PushgateFunctions
import PushgateInstalledServices
import PushgateTesting
import Testing

@Suite("Paged listings: /subscriptions and /diagnostics")
struct PagingTests {
    static let cwds = (0..<7).map { "/srv/agent-\($0)" }

    /// Seven agents followed by "phone"; "tablet" follows two of them.
    func fixture() async throws -> FunctionsFixture {
        let fixture = try FunctionsFixture()
        for cwd in Self.cwds {
            _ = try await fixture.register(["cwd": .string(cwd), "installation_id": "phone", "fcm_token": "t-phone"])
        }
        for cwd in Self.cwds.prefix(2) {
            _ = try await fixture.register(["cwd": .string(cwd), "installation_id": "tablet", "fcm_token": "t-tablet"])
        }
        return fixture
    }

    /// Follows the tokens from the first page to the last: the keys of each page.
    func pages(size: Int, _ read: (PageRequest) async throws -> (keys: [String], next: String?)) async throws
        -> [[String]]
    {
        var pages: [[String]] = []
        var token: String?
        repeat {
            let (keys, next) = try await read(try PageRequest(size: String(size), token: token))
            pages.append(keys)
            token = next
        } while token != nil && pages.count < 20
        return pages
    }

    var allKeys: [String] { Self.cwds.map { AgentKey(cwd: $0).hex }.sorted() }

    @Test("subscriptions: pages of the asked size in agent-key order, each agent once, a token only while more follow")
    func subscriptions() async throws {
        let fixture = try await fixture()
        let list = SubscriptionsFunction(store: fixture.store, formats: .installed)
        let pages = try await pages(size: 3) { page in
            let answer = try await list(
                secret: fixture.secret,
                SubscriptionsRequest(
                    installationID: "phone", pageSize: String(page.size), pageToken: page.afterAgentKey))
            #expect(answer.subscriptions.map(\.cwd) == answer.subscriptions.map(\.cwd).sorted(), "a page is by cwd")
            return (answer.subscriptions.map(\.agentKey).sorted(), answer.nextPageToken)
        }
        #expect(pages.map(\.count) == [3, 3, 1])
        #expect(pages.flatMap { $0 } == allKeys)
        let whole = try await list(secret: fixture.secret, SubscriptionsRequest(installationID: "phone"))
        #expect(whole.subscriptions.count == 7 && whole.nextPageToken == nil, "up to 500 without asking")
        let exact = try await list(secret: fixture.secret, SubscriptionsRequest(installationID: "phone", pageSize: "7"))
        #expect(exact.subscriptions.count == 7 && exact.nextPageToken == nil, "a full last page has no token")
    }

    @Test("diagnostics: the agents a page at a time, with their device counts")
    func diagnosticsAgents() async throws {
        let fixture = try await fixture()
        let function = DiagnosticsFunction(
            store: fixture.store, outbox: fixture.outbox, formats: .installed, now: fixture.clock.now)
        var counts: [Double] = []
        let pages = try await pages(size: 2) { page in
            let answer = try await function(
                secret: fixture.secret,
                DiagnosticsRequest(installationID: nil, pageSize: String(page.size), pageToken: page.afterAgentKey))
            let agents = answer.objectValue?["agents"]?.arrayValue ?? []
            counts += agents.compactMap { agent in
                if case .number(let count)? = agent.objectValue?["device_count"] { count } else { nil }
            }
            return (
                agents.compactMap { $0.objectValue?["agent_key"]?.stringValue },
                answer.objectValue?["next_page_token"]?.stringValue
            )
        }
        #expect(pages.map(\.count) == [2, 2, 2, 1])
        #expect(pages.flatMap { $0 } == allKeys, "agent-key order across pages")
        #expect(counts.reduce(0, +) == 9, "seven phones and two tablets")
    }

    @Test("diagnostics of one installation: its agents a page at a time")
    func diagnosticsInstallation() async throws {
        let fixture = try await fixture()
        let function = DiagnosticsFunction(
            store: fixture.store, outbox: fixture.outbox, formats: .installed, now: fixture.clock.now)
        let pages = try await pages(size: 4) { page in
            let answer = try await function(
                secret: fixture.secret,
                DiagnosticsRequest(installationID: "phone", pageSize: String(page.size), pageToken: page.afterAgentKey))
            let agents = answer.objectValue?["installation"]?.objectValue?["agents"]?.arrayValue ?? []
            return (
                agents.compactMap { $0.objectValue?["agent_key"]?.stringValue },
                answer.objectValue?["next_page_token"]?.stringValue
            )
        }
        #expect(pages.map(\.count) == [4, 3])
        #expect(pages.flatMap { $0 } == allKeys)
    }

    @Test(
        "a page size outside 1…500 or a token this gateway did not give is a 400 naming the parameter",
        arguments: [
            ("0", nil, "page_size"), ("501", nil, "page_size"), ("-1", nil, "page_size"), ("2.5", nil, "page_size"),
            ("", nil, "page_size"), ("07", nil, "page_size"), ("+7", nil, "page_size"), (nil, "abc", "page_token"),
            (nil, String(repeating: "A", count: 64), "page_token"),
            (nil, String(repeating: "a", count: 65), "page_token"),
        ] as [(String?, String?, String)])
    func invalidPages(size: String?, token: String?, field: String) {
        #expect {
            _ = try PageRequest(size: size, token: token)
        } throws: { error in
            (error as? FunctionError)?.code == .invalidArgument && (error as? FunctionError)?.field == field
        }
    }
}
