import Crypto
import Foundation
import PushgateAPNs
import PushgateCore
import PushgateDelivery
import PushgateFCM
import PushgateFunctions
import PushgateProviderKit
import PushgateServer
import Testing

@Suite("Configuration: flags, then PUSHGATE_*, then the file, then defaults")
struct ConfigurationTests {
    let yaml = """
        port: 9090
        host: 0.0.0.0
        database: /var/lib/pushgate/pushgate.sqlite
        apns:
          environment: sandbox
          connections: 4
        fcm:
          credentials: /etc/pushgate/firebase.json
          connections: 3
        escalation_schedule: [5m, 1h]
        trigger_wait: 0.5
        colour: blue
        apns_colour: red
        """

    func file() throws -> ConfigurationFile {
        try ConfigurationFile(path: "pushgate.yaml", text: yaml)
    }

    @Test("each source wins over the ones after it; the file reads flat keys, sections and lists")
    func precedence() throws {
        let sources = SettingSources(
            flags: ["port": "7070"],
            environment: ["PUSHGATE_PORT": "8081", "PUSHGATE_HOST": "10.0.0.1", "PUSHGATE_UNRELATED": "x"],
            file: try file()
        )
        let configuration = try sources.gatewayConfiguration()
        #expect(configuration.port == 7070)
        #expect(configuration.host == "10.0.0.1")
        #expect(configuration.databasePath == "/var/lib/pushgate/pushgate.sqlite")
        #expect(try configuration.sources.value(.apnsEnvironment) == .sandbox)
        #expect(try configuration.sources.value(.apnsConnections) == 4)
        #expect(try configuration.sources.optional(.fcmCredentials) == "/etc/pushgate/firebase.json")
        #expect(try configuration.sources.value(.fcmConnections) == 3)
        let policy = try sources.deliveryPolicy()
        #expect(policy.escalation == [.seconds(300), .seconds(3600)])
        #expect(policy.triggerWait == .milliseconds(500))

        let origins = Dictionary(uniqueKeysWithValues: sources.effective().map { ($0.setting.key, $0.origin) })
        #expect(origins["port"] == .flag)
        #expect(origins["host"] == .environment)
        #expect(origins["apns_connections"] == .file("pushgate.yaml"))
        #expect(origins["fcm_credentials"] == .file("pushgate.yaml"))
        #expect(origins["log_level"] == .default)
        #expect(configuration.metrics == .address(host: "127.0.0.1", port: 9464), "metrics on loopback unless told")
        for (text, listen) in [
            ("0.0.0.0:9100", MetricsListen.address(host: "0.0.0.0", port: 9100)),
            ("[::1]:0", .address(host: "::1", port: 0)), ("main", .main), ("off", .off),
        ] {
            #expect(
                try SettingSources(environment: ["PUSHGATE_METRICS_LISTEN": text]).gatewayConfiguration().metrics
                    == listen)
        }
        #expect(configuration.connections == ConnectionLimits())
        let limits = try SettingSources(flags: ["max_connections": "64", "idle_timeout": "5", "receive_timeout": "2"])
            .gatewayConfiguration().connections
        #expect(limits == ConnectionLimits(maxConnections: 64, idleTimeout: .seconds(5), receiveTimeout: .seconds(2)))
    }

    @Test(
        "the APNs environment: production, sandbox, or development as seed 002 writes it (the sandbox); any case",
        arguments: [
            ("production", APNsEnvironment.production), ("sandbox", .sandbox), ("development", .sandbox),
            ("Development", .sandbox),
        ])
    func apnsEnvironment(text: String, environment: APNsEnvironment) throws {
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("pushgate-\(UUID()).p8").path
        try P256.Signing.PrivateKey().pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: keyFile) }
        let settings = SettingSources(
            environment: [
                "PUSHGATE_APNS_KEY_PATH": keyFile, "PUSHGATE_APNS_KEY_ID": "K", "PUSHGATE_APNS_TEAM_ID": "T",
                "PUSHGATE_APNS_TOPIC": "t", "PUSHGATE_APNS_ENVIRONMENT": text,
            ])
        #expect(try APNsConfiguration.read(from: settings)?.environment == environment)
    }

    @Test("nothing given: the documented defaults")
    func defaults() throws {
        let configuration = try SettingSources().gatewayConfiguration()
        let setup = try configuration.setup()
        #expect(setup.delivery == DeliveryPolicy() && setup.admission == AdmissionPolicy())
        #expect(setup.rateLimits == RateLimiter.Limits() && setup.presence == PresencePolicy())
        #expect(configuration.connections == ConnectionLimits() && configuration.log == LogSettings())
        #expect(
            configuration.host == "127.0.0.1" && configuration.port == 8080 && configuration.readyMaxBacklog == 100_000)
        #expect(configuration.servesConsole && !configuration.healthDetails && configuration.metrics == .default)
        let shown = Dictionary(uniqueKeysWithValues: SettingSources().effective().map { ($0.setting.key, $0.value) })
        #expect(
            shown["port"] == "8080" && shown["database"] == "pushgate.sqlite" && shown["apns_key_path"] == .some(nil))
    }

    @Test("apps: each app's keys over the gateway's, its topic its id unless given, the default first")
    func apps() throws {
        let file = try ConfigurationFile(
            path: "apps.yaml",
            text: """
                apns_key_id: GLOBALKEY1
                apns_team_id: GLOBALTEAM
                apps:
                  - id: com.example.shop
                    apns: {key_path: /k/shop.p8, environment: sandbox}
                    fcm: {credentials: /k/shop.json}
                  - id: com.example.chess
                    apns: {key_path: /k/chess.p8, key_id: CHESSKEY01, team_id: CHESSTEAM1, topic: com.example.chess.game}
                default_app: com.example.chess
                """)
        #expect(file.apps.map(\.id) == ["com.example.shop", "com.example.chess"])
        #expect(file.unknownKeys.isEmpty)
        let configuration = try SettingSources(file: file).gatewayConfiguration()
        #expect(try configuration.sources.optional(.defaultApp) == "com.example.chess")
        let shop = configuration.sources.app(configuration.apps[0])
        #expect(try shop.optional(.apnsKeyPath) == "/k/shop.p8" && shop.optional(.apnsKeyID) == "GLOBALKEY1")
        #expect(try shop.optional(.apnsTeamID) == "GLOBALTEAM")
        #expect(try shop.optional(.apnsTopic) == "com.example.shop" && shop.value(.apnsEnvironment) == .sandbox)
        #expect(try shop.optional(.fcmCredentials) == "/k/shop.json")
        let chess = configuration.sources.app(configuration.apps[1])
        #expect(try chess.optional(.apnsKeyID) == "CHESSKEY01" && chess.optional(.apnsTeamID) == "CHESSTEAM1")
        #expect(try chess.optional(.apnsTopic) == "com.example.chess.game")
        // The key files are read when the apps are checked: one line naming the app.
        #expect {
            _ = try configuration.appConfigurations()
        } throws: { error in
            "\(error)".hasPrefix("app com.example.shop: apns_key_path in apps.yaml") && !"\(error)".contains("\n")
        }
    }

    @Test(
        "sealed pushes: the gateway's neutral text and sealed_only, each app's own over them; a title that is not one line is refused"
    )
    func sealedSettings() throws {
        let file = try ConfigurationFile(
            path: "sealed.yaml",
            text: """
                sealed_title: Pushgate
                apps:
                  - id: com.example.shop
                  - id: com.example.chess
                    sealed: {title: Chess, body: Your move}
                    sealed_only: true
                """)
        let setup = try SettingSources(file: file).gatewayConfiguration().setup()
        #expect(
            setup.apps.map(\.sealing) == [
                PushSealing(title: "Pushgate", body: PushSealing.defaultBody),
                PushSealing(title: "Chess", body: "Your move", sealedOnly: true),
            ])
        #expect(setup.admission.sealedOnlyApps == ["com.example.chess"] && !setup.admission.sealedOnlyByDefault)
        let single = try SettingSources(environment: ["PUSHGATE_SEALED_ONLY": "on"]).gatewayConfiguration().setup()
        #expect(single.admission.sealedOnlyByDefault)
        #expect {
            _ = try SettingSources(environment: ["PUSHGATE_SEALED_TITLE": "two\nlines"]).gatewayConfiguration().setup()
        } throws: { error in
            "\(error)".hasPrefix("PUSHGATE_SEALED_TITLE must be one line") && !"\(error)".contains("\n")
        }
    }

    @Test(
        "a bad apps: list is one line naming the app or its place",
        arguments: [
            ("apps: com.example.shop", "must be a list of apps"),
            ("apps:\n  - com.example.shop", "apps[0] in bad.yaml must be a mapping"),
            ("apps:\n  - apns: {key_id: K}", "apps[0] in bad.yaml has no id"),
            ("apps:\n  - id: a\n    apns: {key: x}", "app a in bad.yaml: unknown key apns_key"),
            ("apps:\n  - id: a\n  - id: a", "app a is listed twice"),
            ("apps:\n  - id: a\n    apns: {key_path: [x]}", "apns_key_path of apps[0] in bad.yaml must be a value"),
        ])
    func badApps(text: String, message: String) {
        #expect {
            _ = try ConfigurationFile(path: "bad.yaml", text: text)
        } throws: { error in
            "\(error)".contains(message) && !"\(error)".contains("\n")
        }
    }

    @Test(
        "the setup reads each app's key once; with apps:, the top-level APNs settings are only their fallback, for config as for serve"
    )
    func setupWithApps() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushgate-setup-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = directory.appendingPathComponent("shop.p8").path
        try P256.Signing.PrivateKey().pemRepresentation.write(toFile: key, atomically: true, encoding: .utf8)
        // No top-level key path: incomplete alone, complete in the app.
        let file = try ConfigurationFile(
            path: "apps.yaml",
            text: """
                apns_key_id: GLOBALKEY1
                apns_team_id: GLOBALTEAM
                apns_ttl: 3600
                apps:
                  - id: com.example.shop
                    apns: {key_path: \(key)}
                """)
        let configuration = try SettingSources(file: file).gatewayConfiguration()
        let setup = try configuration.setup()
        #expect(setup.apps.map(\.id) == ["com.example.shop"])
        let apns = setup.apps.first?.services.first { $0.service == .apns }?.configuration as? APNsConfiguration
        #expect(apns?.topic == "com.example.shop" && setup.services.isEmpty)
        #expect(setup.delivery.timeToLive == .seconds(3600), "the apps' shared time to live")
        try configuration.validate()  // `pushgate config` accepts what serve starts with
    }

    @Test("default_app must name one of apps:, and needs them")
    func defaultApp() throws {
        let file = try ConfigurationFile(path: "a.yaml", text: "apps:\n  - id: a\ndefault_app: b\n")
        #expect(throws: ConfigurationError.self) { try SettingSources(file: file).gatewayConfiguration().validate() }
        #expect(throws: ConfigurationError.self) {
            try SettingSources(environment: ["PUSHGATE_DEFAULT_APP": "a"]).gatewayConfiguration().validate()
        }
        let one = try ConfigurationFile(path: "a.yaml", text: "apps:\n  - id: a\n")
        #expect(try SettingSources(file: one).gatewayConfiguration().appConfigurations().map(\.id) == ["a"])
    }

    @Test("the console is on unless PUSHGATE_CONSOLE says off")
    func console() throws {
        #expect(try SettingSources().gatewayConfiguration().servesConsole)
        #expect(try !SettingSources(environment: ["PUSHGATE_CONSOLE": "off"]).gatewayConfiguration().servesConsole)
        let file = try ConfigurationFile(path: "p.yaml", text: "console: off\n")
        #expect(try !SettingSources(file: file).gatewayConfiguration().servesConsole)
    }

    @Test("health checks tell details on the main port only when PUSHGATE_HEALTH_DETAILS says on")
    func healthDetails() throws {
        #expect(try !SettingSources().gatewayConfiguration().healthDetails)
        #expect(try SettingSources(environment: ["PUSHGATE_HEALTH_DETAILS": "on"]).gatewayConfiguration().healthDetails)
        #expect(throws: ConfigurationError.self) {
            try SettingSources(environment: ["PUSHGATE_HEALTH_DETAILS": "all"]).gatewayConfiguration()
        }
    }

    @Test("file values are read as written, as flags and variables are: off stays off, 0.50 stays 0.50")
    func valuesAsWritten() throws {
        let file = try ConfigurationFile(path: "p.yaml", text: "coalesce_window: off\ntrigger_wait: 0.50\nport: ~\n")
        #expect(file.values == ["coalesce_window": "off", "trigger_wait": "0.50"])
        #expect(
            try SettingSources(file: file).gatewayConfiguration().setup().delivery.coalesceWindow == nil
        )
    }

    @Test("unknown keys in the file are reported by name, and not used")
    func unknownKeys() throws {
        #expect(try file().unknownKeys == ["apns_colour", "colour"])
        #expect(try file().values["colour"] == nil)
    }

    @Test(
        "a file that is not YAML, not a mapping, or holds a nested value where a value goes is one line naming it",
        arguments: [
            ("port: [1", "is not valid YAML"), ("- a\n- b", "must be a mapping"),
            ("port: [[1]]", "port in bad.yaml must be a value or a list of values"),
        ])
    func badFiles(text: String, message: String) {
        #expect {
            _ = try ConfigurationFile(path: "bad.yaml", text: text)
        } throws: { error in
            "\(error)".contains(message) && "\(error)".contains("bad.yaml") && !"\(error)".contains("\n")
        }
        #expect(throws: ConfigurationError.self) { _ = try ConfigurationFile(path: "/nonexistent/pushgate.yaml") }
    }

    @Test(
        "a bad value stops the start with one line naming the setting where it was given: its flag, its variable",
        arguments: [
            (SettingSources(flags: ["port": "http"]), "--port must be a port number"),
            (SettingSources(environment: ["PUSHGATE_PORT": "70000"]), "PUSHGATE_PORT"),
            (SettingSources(environment: ["PUSHGATE_LOG_LEVEL": "loud"]), "PUSHGATE_LOG_LEVEL"),
            (SettingSources(flags: ["log_format": "xml"]), "--log-format must be text or json"),
            (SettingSources(flags: ["ready_max_backlog": "-1"]), "--ready-max-backlog"),
            (SettingSources(environment: ["PUSHGATE_METRICS_LISTEN": "metrics"]), "PUSHGATE_METRICS_LISTEN"),
            (SettingSources(environment: ["PUSHGATE_METRICS_LISTEN": "9464"]), "PUSHGATE_METRICS_LISTEN"),
            (SettingSources(environment: ["PUSHGATE_METRICS_LISTEN": ":9464"]), "PUSHGATE_METRICS_LISTEN"),
            (SettingSources(environment: ["PUSHGATE_METRICS_LISTEN": "localhost:99999"]), "PUSHGATE_METRICS_LISTEN"),
            (
                SettingSources(flags: ["port": "9100", "metrics_listen": "127.0.0.1:9100"]),
                "--metrics-listen must use another port than --port (9100)"
            ),
            (SettingSources(flags: ["max_connections": "0"]), "--max-connections"),
            (SettingSources(flags: ["idle_timeout": "soon"]), "--idle-timeout"),
            (SettingSources(flags: ["receive_timeout": "-1"]), "--receive-timeout"),
            (SettingSources(environment: ["PUSHGATE_CONSOLE": "yes"]), "PUSHGATE_CONSOLE"),
        ])
    func badValues(sources: SettingSources, name: String) {
        #expect {
            _ = try sources.gatewayConfiguration()
        } throws: { error in
            "\(error)".contains(name) && !"\(error)".contains("\n")
        }
    }

    @Test("values checked when the gateway is built are checked by validate() too")
    func validate() throws {
        let file = try ConfigurationFile(path: "p.yaml", text: "trigger_wait: soon")
        let configuration = try SettingSources(file: file).gatewayConfiguration()
        #expect { try configuration.validate() } throws: {
            "\($0)" == "trigger_wait in p.yaml line 1 must be seconds from 0.0 to 600.0, not 'soon'"
        }
        let stray = try SettingSources(environment: ["PUSHGATE_APNS_TOPIC": "com.example"]).gatewayConfiguration()
        #expect { try stray.validate() } throws: { "\($0)".contains("PUSHGATE_APNS_KEY_PATH") }
    }

    @Test("the value of a setting is read by its rule wherever it was given; every default reads by its own rule")
    func rulesEverywhere() throws {
        let file = try ConfigurationFile(path: "g.yaml", text: "answer_max_devices: 7\nescalation_schedule: ''\n")
        #expect(try SettingSources(file: file).value(.answerMaxDevices) == 7)
        #expect(try SettingSources(file: file).value(.escalationSchedule) == [], "an empty schedule: no reminders")
        #expect(try SettingSources(environment: ["PUSHGATE_ANSWER_MAX_DEVICES": " "]).value(.answerMaxDevices) == 1000)
        #expect(try SettingSources(flags: ["answer_max_devices": "9"], file: file).value(.answerMaxDevices) == 9)
        #expect {
            try SettingSources(file: try ConfigurationFile(path: "g.yaml", text: "port: 1\nipv6_prefix: 200\n"))
                .rateLimits()
        } throws: {
            "\($0)" == "ipv6_prefix in g.yaml line 2 must be a prefix length from 1 to 128, not '200'"
        }
        for setting in AnySetting.all {
            if let text = setting.defaultValue { #expect(setting.problem(with: text) == nil, "\(setting.key)") }
        }
    }

    @Test("pushgate config masks a URL's password, and nothing else")
    func masking() {
        let sources = SettingSources(flags: ["database": "postgres://pushgate:hunter2@db:5432/pushgate"])
        let database = sources.effective().first { $0.setting == Setting<String>.database.erased }
        #expect(database?.value == "postgres://pushgate:****@db:5432/pushgate")
        let path = SettingSources(flags: ["database": "/data/pushgate.sqlite"]).effective().first {
            $0.setting == Setting<String>.database.erased
        }
        #expect(path?.value == "/data/pushgate.sqlite")
    }

    @Test("every setting is documented in the README's table, with its variable")
    func documented() throws {
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("README.md"),
            encoding: .utf8)
        for setting in AnySetting.all {
            #expect(readme.contains("`\(setting.environmentName)`"), "\(setting.key)")
            #expect(readme.contains("`\(setting.key)`"), "\(setting.key)")
        }
    }
}
