import PushgateClient
import Testing

@Suite("The proxy's env file: the push settings set, everything else kept")
struct ProxyEnvironmentFileTests {
    static let values = [
        (key: ProxyEnvironmentFile.secretKey, value: "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA=="),
        (key: ProxyEnvironmentFile.gatewayURLKey, value: "https://push.example.com"),
    ]

    @Test("a file with other keys and comments: both added at the end, every other line as it was")
    func added() {
        let before = "# Claude proxy\nANTHROPIC_API_KEY=sk-ant-1\n\nPORT=8080\n"
        let after = ProxyEnvironmentFile.upserting(Self.values, into: before)
        #expect(
            after
                == before + "CODEAGENTS_PUSH_SECRET=c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA==\n"
                + "CODEAGENTS_PUSH_GATEWAY_BASE_URL=https://push.example.com\n")
    }

    @Test("an existing assignment is replaced where it stands, its export kept; a later duplicate removed")
    func replaced() {
        let before = """
            export CODEAGENTS_PUSH_SECRET="old"
            # the gateway
            CODEAGENTS_PUSH_GATEWAY_BASE_URL=http://old:8080
            CLAUDE_CODE_OAUTH_TOKEN=abc
            CODEAGENTS_PUSH_SECRET=older

            """
        let after = ProxyEnvironmentFile.upserting(Self.values, into: before)
        #expect(
            after == """
                export CODEAGENTS_PUSH_SECRET=c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA==
                # the gateway
                CODEAGENTS_PUSH_GATEWAY_BASE_URL=https://push.example.com
                CLAUDE_CODE_OAUTH_TOKEN=abc

                """)
        #expect(
            ProxyEnvironmentFile.upserting(Self.values, into: after) == after, "setting the same again changes nothing")
    }

    @Test("an empty file, one without a final line break, a commented-out key")
    func edges() {
        #expect(ProxyEnvironmentFile.upserting([(key: "A", value: "1")], into: "") == "A=1\n")
        #expect(ProxyEnvironmentFile.upserting([(key: "A", value: "1")], into: "B=2") == "B=2\nA=1\n")
        #expect(
            ProxyEnvironmentFile.upserting([(key: "A", value: "1")], into: "#A=0\n") == "#A=0\nA=1\n",
            "a comment is not an assignment")
        #expect(
            ProxyEnvironmentFile.upserting([(key: "A", value: "1")], into: "AB=0\n") == "AB=0\nA=1\n",
            "another key that starts alike")
    }

    @Test("a value that needs quotes gets them, and reads back as it was")
    func quoting() {
        let value = #"two words $HOME "quoted" \ back"#
        let file = ProxyEnvironmentFile.upserting([(key: "A", value: value)], into: "")
        #expect(file == #"A="two words \$HOME \"quoted\" \\ back""# + "\n")
        #expect(ProxyEnvironmentFile.value(of: "A", in: file) == value)
    }

    @Test("reading a value: the last assignment, quotes removed, export or not")
    func reading() {
        let file = "export CODEAGENTS_PUSH_SECRET='first'\nCODEAGENTS_PUSH_SECRET=\"second\"  \nOTHER=x\n"
        #expect(ProxyEnvironmentFile.value(of: ProxyEnvironmentFile.secretKey, in: file) == "second")
        #expect(ProxyEnvironmentFile.value(of: "MISSING", in: file) == nil)
    }
}
