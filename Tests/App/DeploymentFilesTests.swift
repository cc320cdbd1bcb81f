import Foundation
import PushgateCore
import PushgatePostgres
import PushgateServer
import Testing
import Yams

/// The files in `docker/` and `deploy/`: no Docker engine runs here, so what can be
/// checked without one is checked — the env example against the configuration
/// loader, the entrypoint script with a stand-in `pushgate`.
@Suite("Deployment files")
struct DeploymentFilesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("docker/pushgate.env.example names only real settings, and its values start a gateway")
    func envExample() throws {
        let text = try String(
            contentsOf: Self.root.appendingPathComponent("docker/pushgate.env.example"), encoding: .utf8)
        var environment: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let assignment = trimmed.hasPrefix("#PUSHGATE_") ? String(trimmed.dropFirst()) : trimmed
            guard !assignment.hasPrefix("#"), !assignment.isEmpty else { continue }
            let parts = assignment.split(separator: "=", maxSplits: 1)
            try #require(parts.count == 2, "\(line)")
            environment[String(parts[0])] = String(parts[1])
        }
        let known = Set(AnySetting.all.map(\.environmentName))
        #expect(
            Set(environment.keys).subtracting(known).isEmpty, "unknown: \(Set(environment.keys).subtracting(known))")
        // The commented APNs and FCM lines name key files that are not here: check the rest.
        let active = environment.filter {
            !$0.key.hasPrefix("PUSHGATE_APNS_KEY")
                && ![
                    "PUSHGATE_APNS_TEAM_ID", "PUSHGATE_APNS_TOPIC", "PUSHGATE_FCM_CREDENTIALS",
                    "PUSHGATE_FCM_PROJECT_ID",
                ].contains($0.key)
        }
        let configuration = try SettingSources(environment: active).gatewayConfiguration()
        try configuration.validate()
        #expect(configuration.host == "0.0.0.0" && configuration.log.format == .json)
    }

    struct Run {
        let status: Int32
        let output: String
    }

    /// Runs the entrypoint with a stand-in `pushgate` that prints its arguments and
    /// the APNs URL it was given.
    func entrypoint(_ arguments: [String], environment: [String: String]) throws -> Run {
        // A script just written may be held open for writing by a child another test
        // forked meanwhile (Linux answers its exec ETXTBSY, "Text file busy"): run again.
        for _ in 0..<4 {
            let run = try entrypointOnce(arguments, environment: environment)
            if !run.output.contains("Text file busy") { return run }
        }
        return try entrypointOnce(arguments, environment: environment)
    }

    private func entrypointOnce(_ arguments: [String], environment: [String: String]) throws -> Run {
        let bin = FileManager.default.temporaryDirectory.appendingPathComponent("pushgate-bin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: bin) }
        let fake = bin.appendingPathComponent("pushgate")
        try "#!/bin/sh\necho \"args: $*\"\necho \"apns: ${PUSHGATE_APNS_URL:-}\"\n".write(
            to: fake, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake.path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [Self.root.appendingPathComponent("docker/entrypoint.sh").path] + arguments
        var env = environment
        env["PATH"] = bin.path + ":/usr/bin:/bin"
        process.environment = env
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    @Test("compose's postgres profile: PostgreSQL, two gateway replicas on it, a database URL the gateway accepts")
    func composePostgresProfile() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("docker/compose.yaml"), encoding: .utf8)
        let services = try #require(try Yams.load(yaml: text) as? [String: Any])["services"] as? [String: Any]
        let postgres = try #require(services?["postgres"] as? [String: Any])
        let gateway = try #require(services?["gateway-postgres"] as? [String: Any])
        #expect(postgres["profiles"] as? [String] == ["postgres"] && gateway["profiles"] as? [String] == ["postgres"])
        #expect((gateway["deploy"] as? [String: Any])?["replicas"] as? Int == 2)
        // The credentials come from docker/postgres.env (its example here), never the YAML.
        #expect(!text.contains("POSTGRES_PASSWORD:"))
        #expect(!text.contains("change-me"))
        for service in [postgres, gateway] {
            let files = (service["env_file"] as? [[String: Any]])?.compactMap { $0["path"] as? String } ?? []
            #expect(files.contains("postgres.env"))
        }
        let example = try String(
            contentsOf: Self.root.appendingPathComponent("docker/postgres.env.example"), encoding: .utf8)
        var values: [String: String] = [:]
        for line in example.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        let url = try #require(values["PUSHGATE_DATABASE"])
        let settings = try SettingSources(environment: ["PUSHGATE_DATABASE": url]).gatewayConfiguration()
        #expect(settings.databasePath == url)
        let parsed = try PostgresURL(url)
        #expect(parsed.username == values["POSTGRES_USER"] && parsed.database == values["POSTGRES_DB"])
        #expect(url.contains(":\(values["POSTGRES_PASSWORD"] ?? "-")@") && parsed.host == "postgres")
    }

    /// `KEY=value` lines of an env example.
    func envValues(_ path: String) throws -> [String: String] {
        let text = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        return values
    }

    @Test("compose's ha profile: etcd, two Patroni nodes, haproxy routing to the primary, two gateways through it")
    func composeHAProfile() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("docker/compose.yaml"), encoding: .utf8)
        let services = try #require(try Yams.load(yaml: text) as? [String: Any])["services"] as? [String: Any] ?? [:]
        for name in ["etcd", "patroni1", "patroni2", "haproxy", "gateway-ha"] {
            let service = try #require(services[name] as? [String: Any], "\(name)")
            #expect(service["profiles"] as? [String] == ["ha"], "\(name)")
        }
        let gateway = try #require(services["gateway-ha"] as? [String: Any])
        #expect((gateway["deploy"] as? [String: Any])?["replicas"] as? Int == 2)
        let gatewayFiles = (gateway["env_file"] as? [[String: Any]])?.compactMap { $0["path"] as? String } ?? []
        // The gateways get their database URL, never the Patroni superuser's password.
        #expect(gatewayFiles.contains("ha-gateway.env") && !gatewayFiles.contains("ha.env"))
        for node in ["patroni1", "patroni2"] {
            let service = try #require(services[node] as? [String: Any])
            let environment = try #require(service["environment"] as? [String: String])
            #expect(environment["PATRONI_NAME"] == node)
            #expect(environment["PATRONI_POSTGRESQL_CONNECT_ADDRESS"] == "\(node):5432")
        }
        #expect(!text.contains("PASSWORD:") && !text.contains("change-me"))

        // Patroni: synchronous replication, an immediate failover, pg_rewind for the old primary.
        let patroni = try #require(
            try Yams.load(
                yaml: String(
                    contentsOf: Self.root.appendingPathComponent("deploy/patroni/patroni.yml"), encoding: .utf8))
                as? [String: Any])
        let dcs = try #require((patroni["bootstrap"] as? [String: Any])?["dcs"] as? [String: Any])
        #expect(dcs["synchronous_mode"] as? Bool == true && dcs["primary_start_timeout"] as? Int == 0)
        let dcsPostgres = try #require(dcs["postgresql"] as? [String: Any])
        #expect(dcsPostgres["use_pg_rewind"] as? Bool == true)
        #expect((dcsPostgres["parameters"] as? [String: Any])?["wal_log_hints"] as? String == "on")
        #expect(patroni["scope"] as? String == "pushgate" && patroni["etcd3"] != nil)

        // haproxy: only the node whose Patroni answers /primary with 200 gets connections.
        let haproxy = try String(
            contentsOf: Self.root.appendingPathComponent("deploy/patroni/haproxy.cfg"), encoding: .utf8)
        #expect(haproxy.contains("option httpchk OPTIONS /primary") && haproxy.contains("http-check expect status 200"))
        #expect(haproxy.contains("on-marked-down shutdown-sessions"))
        #expect(haproxy.contains("server patroni1 patroni1:5432") && haproxy.contains("server patroni2 patroni2:5432"))
        #expect(haproxy.contains("bind *:5000"))
        // haproxy's own check of the file (scripts/install-deps --test installs haproxy).
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/sbin/haproxy")
        check.arguments = ["-c", "-q", "-f", Self.root.appendingPathComponent("deploy/patroni/haproxy.cfg").path]
        try check.run()
        check.waitUntilExit()
        #expect(check.terminationStatus == 0, "haproxy -c refuses deploy/patroni/haproxy.cfg")

        // The gateways' URL: the gateway accepts it, it names haproxy's port and the role post_init makes.
        let url = try #require(try envValues("docker/ha-gateway.env.example")["PUSHGATE_DATABASE"])
        let parsed = try PostgresURL(url)
        #expect(parsed.host == "haproxy" && parsed.port == 5000 && parsed.username == "pushgate")
        #expect(try SettingSources(environment: ["PUSHGATE_DATABASE": url]).gatewayConfiguration().databasePath == url)
        let password = try #require(try envValues("docker/ha.env.example")["PUSHGATE_DB_PASSWORD"])
        #expect(url.contains(":\(password)@"))
        let postInit = try String(
            contentsOf: Self.root.appendingPathComponent("deploy/patroni/post_init.sh"), encoding: .utf8)
        #expect(
            postInit.contains("CREATE ROLE pushgate") && postInit.contains("CREATE DATABASE pushgate OWNER pushgate"))
    }

    @Test("compose publishes every port on the host's loopback only; metrics stay off the main port")
    func composeExposure() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("docker/compose.yaml"), encoding: .utf8)
        let services = try #require(try Yams.load(yaml: text) as? [String: Any])["services"] as? [String: Any] ?? [:]
        var published = 0
        for (name, service) in services {
            for port in ((service as? [String: Any])?["ports"] as? [String]) ?? [] {
                published += 1
                #expect(port.hasPrefix("127.0.0.1:"), "\(name) publishes \(port)")
            }
        }
        #expect(published >= 5)
        let gateway = try #require(services["gateway"] as? [String: Any])
        let listen = try #require((gateway["environment"] as? [String: String])?["PUSHGATE_METRICS_LISTEN"])
        #expect(try MetricsListen(listen) == .address(host: "0.0.0.0", port: 9464))
        #expect((gateway["ulimits"] as? [String: Any])?["nofile"] as? Int == 65536)
        let unit = try String(contentsOf: Self.root.appendingPathComponent("deploy/pushgate.service"), encoding: .utf8)
        #expect(unit.contains("\nLimitNOFILE=65536\n"))
    }

    @Test("the entrypoint serves by default, passes flags to serve and other commands as they are")
    func entrypointCommands() throws {
        let data = FileManager.default.temporaryDirectory.path
        let database = ["PUSHGATE_DATABASE": data + "/pushgate.sqlite"]
        #expect(try entrypoint([], environment: database).output.contains("args: serve\n"))
        #expect(try entrypoint(["--port", "9000"], environment: database).output.contains("args: serve --port 9000\n"))
        #expect(try entrypoint(["config", "--port", "1"], environment: [:]).output.contains("args: config --port 1\n"))
    }

    @Test("the entrypoint refuses an unwritable database directory in one line, and loads the emulator's settings")
    func entrypointChecks() throws {
        let refused = try entrypoint(["serve"], environment: ["PUSHGATE_DATABASE": "/nonexistent/pushgate.sqlite"])
        #expect(refused.status == 1)
        #expect(refused.output.contains("cannot write the database directory /nonexistent"), "\(refused.output)")

        let env = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-\(UUID().uuidString).env")
        try "PUSHGATE_APNS_URL=https://127.0.0.1:8443\n".write(to: env, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: env) }
        let loaded = try entrypoint(
            [],
            environment: [
                "APNS_GATEWAY_ENV": env.path, "PUSHGATE_DATABASE": env.deletingLastPathComponent().path + "/x.sqlite",
            ])
        #expect(loaded.output.contains("apns: https://127.0.0.1:8443"), "\(loaded.output)")
    }
}
