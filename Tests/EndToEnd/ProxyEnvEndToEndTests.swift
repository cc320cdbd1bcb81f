import Foundation
import PushgateCore
import PushgateTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `pushgate proxy-env` on env files as real servers have them: written on Windows,
/// edited by two runs at once, owned by the service that reads them, behind a symlink.
@Suite("End to end: proxy-env keeps every line, every change, the file's owner")
struct ProxyEnvEndToEndTests {
    let secret = PushSecret.generate().value

    func read(_ path: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
    }

    func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    func proxyEnv(_ arguments: [String], secret: String = "", url: String = "") async throws -> BuiltExecutable.Result {
        try await BuiltExecutable.run(
            ["proxy-env"] + arguments,
            environment: ["CODEAGENTS_PUSH_SECRET": secret, "CODEAGENTS_PUSH_GATEWAY_BASE_URL": url])
    }

    @Test("a CRLF file keeps its other lines and its line ending; so does one with the secret not first")
    func crlfFile() async throws {
        let scratch = try TemporaryDirectory(name: "e2e-proxy-env-crlf")
        defer { scratch.remove() }
        let file = scratch.path("f.env")
        try write("CODEAGENTS_PUSH_SECRET=\(secret)\r\nANTHROPIC_API_KEY=keep\r\nPORT=8443\r\n", to: file)
        let result = try await proxyEnv(["--file", file, "--url", "http://127.0.0.1:1"])
        #expect(
            result.status == 0 && result.stdout.contains("CODEAGENTS_PUSH_SECRET kept"),
            "\(result.stdout)\(result.stderr)")
        #expect(
            try read(file) == "CODEAGENTS_PUSH_SECRET=\(secret)\r\nANTHROPIC_API_KEY=keep\r\nPORT=8443\r\n"
                + "CODEAGENTS_PUSH_GATEWAY_BASE_URL=http://127.0.0.1:1\r\n")

        try write("\u{FEFF}ANTHROPIC_API_KEY=keep\r\nCODEAGENTS_PUSH_SECRET=\(secret)\r\nPORT=8443", to: file)
        let again = try await proxyEnv(["--file", file])
        #expect(again.status == 0 && again.stdout.contains("CODEAGENTS_PUSH_SECRET kept"), "\(again.stdout)")
        #expect(try read(file) == "\u{FEFF}ANTHROPIC_API_KEY=keep\r\nCODEAGENTS_PUSH_SECRET=\(secret)\r\nPORT=8443")
    }

    @Test("two runs at once, one changing the URL and one the secret: both changes are in the file, every time")
    func concurrentWriters() async throws {
        let scratch = try TemporaryDirectory(name: "e2e-proxy-env-race")
        defer { scratch.remove() }
        let file = scratch.path("f.env")
        for round in 0..<6 {
            try write(
                "CODEAGENTS_PUSH_SECRET=\(secret)\nCODEAGENTS_PUSH_GATEWAY_BASE_URL=http://old:1\nKEEP=\(round)\n",
                to: file)
            let newSecret = PushSecret.generate().value
            async let url = proxyEnv(["--file", file, "--url", "http://new:\(round + 2)"])
            async let key = proxyEnv(["--file", file], secret: newSecret)
            let (first, second) = try await (url, key)
            #expect(first.status == 0 && second.status == 0, "\(first.stderr)\(second.stderr)")
            #expect(
                try read(file)
                    == "CODEAGENTS_PUSH_SECRET=\(newSecret)\nCODEAGENTS_PUSH_GATEWAY_BASE_URL=http://new:\(round + 2)\nKEEP=\(round)\n",
                "round \(round)")
        }
        // Two runs on a file with no secret: one makes it, the other keeps that one.
        try write("KEEP=1\n", to: file)
        async let one = proxyEnv(["--file", file])
        async let two = proxyEnv(["--file", file])
        let outputs = try await [one, two].map(\.stdout)
        #expect(outputs.filter { $0.contains("SECRET generated") }.count == 1, "\(outputs)")
        #expect(outputs.filter { $0.contains("SECRET kept") }.count == 1, "\(outputs)")
        #expect(try read(file).components(separatedBy: "CODEAGENTS_PUSH_SECRET=").count == 2)
        #expect(FileManager.default.fileExists(atPath: scratch.path(".f.env.lock")), "the lock beside the file")
    }

    @Test(
        "a FIFO where the lock or the file goes: refused at once in one line, nothing changed; a lock made is 0600, the file owner's"
    )
    func fifoRefusedLockPrivate() async throws {
        let scratch = try TemporaryDirectory(name: "e2e-proxy-env-fifo")
        defer { scratch.remove() }
        let file = scratch.path("f.env")
        try write("PORT=1\n", to: file)
        try FileManager.default.setAttributes(
            [.ownerAccountID: 65_534, .groupOwnerAccountID: 65_534], ofItemAtPath: file)
        let lock = scratch.path(".f.env.lock")
        #expect(mkfifo(lock, 0o644) == 0)
        // Bounded by coreutils' timeout: the build before waited on the FIFO for good.
        func bounded(_ path: String) async throws -> BuiltExecutable.Result {
            try await BuiltExecutable.run(
                ["20", BuiltExecutable.url.path, "proxy-env", "--file", path],
                environment: ["CODEAGENTS_PUSH_SECRET": secret], program: URL(fileURLWithPath: "/usr/bin/timeout"))
        }
        let started = ContinuousClock.now
        let refused = try await bounded(file)
        #expect(
            refused.status == 1 && refused.stderr.contains("is not a regular file"),
            "\(refused.status) \(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "one line: \(refused.stderr)")
        #expect(ContinuousClock.now - started < .seconds(10), "at once, not after the lock's 10 s")
        #expect(try read(file) == "PORT=1\n")

        let fifo = scratch.path("fifo.env")
        #expect(mkfifo(fifo, 0o600) == 0)
        let notAFile = try await bounded(fifo)
        #expect(notAFile.status == 1 && notAFile.stderr.contains("is not a regular file"), "\(notAFile.stderr)")

        // A lock made anew: the owner's alone, and the env file's owner's (the service may edit it too).
        try FileManager.default.removeItem(atPath: lock)
        let edited = try await proxyEnv(["--file", file], secret: secret)
        #expect(edited.status == 0, "\(edited.stderr)")
        let attributes = try FileManager.default.attributesOfItem(atPath: lock)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        #expect(attributes[.ownerAccountID] as? Int == 65_534, "given to the file's owner")
    }

    @Test("run as root on a 0644 file of another user: its owner and group kept, mode 0600, and said")
    func ownerKept() async throws {
        let scratch = try TemporaryDirectory(name: "e2e-proxy-env-owner")
        defer { scratch.remove() }
        let file = scratch.path("f.env")
        try write("PORT=1\n", to: file)
        // nobody:nogroup, as a service's own user (the suite runs as root, as CI does).
        try FileManager.default.setAttributes(
            [.ownerAccountID: 65_534, .groupOwnerAccountID: 65_534, .posixPermissions: 0o644], ofItemAtPath: file)
        let result = try await proxyEnv(["--file", file], secret: secret)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains("was readable by others than its owner (mode 644): now 0600"), "\(result.stderr)")
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect(attributes[.ownerAccountID] as? Int == 65_534 && attributes[.groupOwnerAccountID] as? Int == 65_534)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
    }

    @Test("edited by a user who cannot give the file back to its owner: refused, nothing changed, nothing left")
    func ownerCannotBeKept() async throws {
        let scratch = try TemporaryDirectory(name: "e2e-proxy-env-not-owner")
        defer { scratch.remove() }
        // A folder anyone may write, a root-owned file in it, and the executable where
        // `nobody` can run it (this clone may sit under a 0700 /root).
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: scratch.url.path)
        let file = scratch.path("f.env")
        try write("PORT=1\n", to: file)
        let executable = scratch.path("pushgate")
        try FileManager.default.copyItem(atPath: BuiltExecutable.url.path, toPath: executable)
        let result = try await BuiltExecutable.run(
            ["--reuid=65534", "--regid=65534", "--clear-groups", executable, "proxy-env", "--file", file],
            environment: ["CODEAGENTS_PUSH_SECRET": secret], program: URL(fileURLWithPath: "/usr/bin/setpriv"))
        #expect(result.status == 1 && result.stderr.contains("cannot keep its owner"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
        #expect(try read(file) == "PORT=1\n")
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect(attributes[.ownerAccountID] as? Int == 0 && attributes[.posixPermissions] as? Int == 0o644)
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted()
        #expect(left == [".f.env.lock", "f.env", "pushgate"], "no temporary file left: \(left)")
    }

    @Test(
        "a symlink is followed: its target gets the new secret and the link stays; a bad secret in the file is replaced, and said"
    )
    func symlinkAndBadSecret() async throws {
        let scratch = try TemporaryDirectory(name: "e2e-proxy-env-link")
        defer { scratch.remove() }
        let target = scratch.path("real.env")
        let link = scratch.path("claude-proxy.env")
        try write("CODEAGENTS_PUSH_SECRET=short\nPORT=1\n", to: target)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real.env")
        let result = try await proxyEnv(["--file", link])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.contains("CODEAGENTS_PUSH_SECRET replaced (the file's did not meet the rule"),
            "\(result.stdout)")
        #expect(result.stdout.contains("→ \(target)"), "\(result.stdout)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "real.env", "the link stays")
        let written = try read(target)
        let secret = try #require(written.split(separator: "\n").first?.dropFirst("CODEAGENTS_PUSH_SECRET=".count))
        #expect(PushSecret(String(secret)) != nil && written.hasSuffix("\nPORT=1\n"), "\(written)")

        // Not a regular file, a missing folder: refused, in one line, nothing made.
        let directory = try await proxyEnv(["--file", scratch.url.path])
        #expect(directory.status == 1 && directory.stderr.contains("is not a regular file"), "\(directory.stderr)")
        let nowhere = try await proxyEnv(["--file", scratch.path("missing/f.env")])
        #expect(nowhere.status == 1 && nowhere.stderr.split(separator: "\n").count == 1, "\(nowhere.stderr)")
    }

    @Test(
        "a secret file every user can read is used, with a warning naming it (the hook's in its one line); a time-out that is no number is refused by every call"
    )
    func exposedSecretFile() async throws {
        let scratch = try TemporaryDirectory(name: "e2e-proxy-env-exposed")
        defer { scratch.remove() }
        let secretFile = scratch.path("secret")
        try write(secret + "\n", to: secretFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: secretFile)
        let file = scratch.path("f.env")
        let result = try await proxyEnv(["--file", file, "--secret-file", secretFile])
        #expect(result.status == 0 && result.stdout.contains("CODEAGENTS_PUSH_SECRET set"), "\(result.stdout)")
        #expect(
            result.stderr.contains("warning: the secret file \(secretFile) can be read by every user"),
            "\(result.stderr)")
        #expect(try read(file) == "CODEAGENTS_PUSH_SECRET=\(secret)\n")

        let away = ["--secret-file", secretFile, "--url", "http://127.0.0.1:1"]
        let hook = try await BuiltExecutable.run(
            ["hook"] + away, input: .bytes(Data(#"{"cwd":"/srv/a","hook_event_name":"Stop"}"#.utf8)))
        #expect(hook.status == 0 && hook.stderr.split(separator: "\n").count == 1, "\(hook.stderr)")
        // "not sent" at once, or, on a machine too busy to connect within the hook's 4 s, "gave up".
        #expect(
            (hook.stderr.contains("not sent") || hook.stderr.contains("gave up after 4 s"))
                && hook.stderr.contains("(warning: the secret file"), "\(hook.stderr)")
        let trigger = try await BuiltExecutable.run(["trigger", "--cwd", "/srv/a", "--timeout", "nan"] + away)
        #expect(
            trigger.status == 64 && trigger.stderr.contains("--timeout takes seconds above 0"),
            "\(trigger.status) \(trigger.stderr)")
    }
}
