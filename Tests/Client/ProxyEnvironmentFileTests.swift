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

    @Test("every line ending round-trips: CRLF kept on every line, new lines end as the file's do")
    func crlf() {
        let before = "CODEAGENTS_PUSH_SECRET=old\r\nANTHROPIC_API_KEY=keep\r\nPORT=8443\r\n"
        let after = ProxyEnvironmentFile.upserting(Self.values, into: before)
        #expect(
            after == "CODEAGENTS_PUSH_SECRET=\(Self.values[0].value)\r\nANTHROPIC_API_KEY=keep\r\nPORT=8443\r\n"
                + "CODEAGENTS_PUSH_GATEWAY_BASE_URL=https://push.example.com\r\n")
        #expect(ProxyEnvironmentFile.upserting(Self.values, into: after) == after)
        #expect(ProxyEnvironmentFile.value(of: "PORT", in: after) == "8443")
        // The secret not first: found where it stands, not appended again.
        let later = "A=1\r\nCODEAGENTS_PUSH_SECRET=old\r\nB=2\r\n"
        #expect(
            ProxyEnvironmentFile.upserting([Self.values[0]], into: later)
                == "A=1\r\nCODEAGENTS_PUSH_SECRET=\(Self.values[0].value)\r\nB=2\r\n")
    }

    @Test("a byte-order mark, a last line without a break, mixed endings: kept as they were")
    func markAndEndings() {
        let marked = "\u{FEFF}CODEAGENTS_PUSH_SECRET=old\nPORT=1"
        #expect(ProxyEnvironmentFile.value(of: ProxyEnvironmentFile.secretKey, in: marked) == "old")
        #expect(
            ProxyEnvironmentFile.upserting([Self.values[0]], into: marked)
                == "\u{FEFF}CODEAGENTS_PUSH_SECRET=\(Self.values[0].value)\nPORT=1", "replaced in place: no break added"
        )
        #expect(ProxyEnvironmentFile.upserting([(key: "A", value: "1")], into: "B=2\r\nC=3") == "B=2\r\nC=3\r\nA=1\r\n")
        #expect(ProxyEnvironmentFile.upserting([(key: "A", value: "1")], into: "B=2\nC=3\r\n") == "B=2\nC=3\r\nA=1\n")
        #expect(
            ProxyEnvironmentFile.upserting([(key: "A", value: "2")], into: "A=1\r\n\r\n# note\r\nA=0\r\n")
                == "A=2\r\n\r\n# note\r\n", "a later duplicate removed with its ending")
    }

    @Test("an inline comment: not part of the value read; kept on a line of its own above a replaced value")
    func inlineComment() {
        let before = "CODEAGENTS_PUSH_GATEWAY_BASE_URL=https://old.example.com  # production\nX=a#b\nY=\"q # r\" # s\n"
        #expect(
            ProxyEnvironmentFile.value(of: ProxyEnvironmentFile.gatewayURLKey, in: before) == "https://old.example.com")
        #expect(ProxyEnvironmentFile.value(of: "X", in: before) == "a#b", "a # not after a blank is the value's")
        #expect(ProxyEnvironmentFile.value(of: "Y", in: before) == "q # r")
        let after = ProxyEnvironmentFile.upserting([Self.values[1]], into: before)
        #expect(
            after == "# production\nCODEAGENTS_PUSH_GATEWAY_BASE_URL=https://push.example.com\nX=a#b\nY=\"q # r\" # s\n"
        )
        #expect(ProxyEnvironmentFile.upserting([Self.values[1]], into: after) == after)
    }

    @Test("a value in quotes with more after it than a comment is read as written")
    func oddQuotes() {
        #expect(ProxyEnvironmentFile.value(of: "A", in: "A=\"x\"y\n") == "\"x\"y")
        #expect(ProxyEnvironmentFile.value(of: "A", in: "A=\"unclosed\n") == "\"unclosed")
        #expect(ProxyEnvironmentFile.value(of: "A", in: "A='it''s'\n") == "'it''s'")
        #expect(
            ProxyEnvironmentFile.value(of: "A", in: #"A="a\nb\$c""# + "\n") == #"a\nb$c"#, "a backslash before n stays")
    }
}
