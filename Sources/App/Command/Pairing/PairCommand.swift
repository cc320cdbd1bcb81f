import ArgumentParser
import Foundation
import PushgateAgentSide
import PushgateCore
import PushgateSealing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `pushgate pair` (issue 82): pairs a phone with this machine, so that it — and only
/// the phones paired here — can say yes to the agent's questions. It opens a pairing
/// at the gateway and shows a one-time code (and a link with its QR code) that goes to
/// the phone by the person's eyes or camera, never through the gateway; the phone
/// signs it, and the phone whose signature verifies against the code is pinned here.
/// `--list` and `--remove` manage the pins; `--join` is the phone's half from a shell.
struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair a phone: only phones paired here say yes.",
        discussion: """
            Shows a one-time code, a link and its QR code; open the link on the phone (scan the code, or \
            type the code in the app). The phone whose signature over the code verifies is paired: its \
            name and key fingerprint are printed — check that the phone shows the same fingerprint. \
            The code never passes through the gateway, so neither the gateway nor anyone holding the push \
            secret can pair a key of its own. A phone's key changes only by pairing it again.
              pushgate pair --secret-file /etc/claude-proxy.env       pair a phone (waits up to --wait)
              pushgate pair --list                                    the phones paired here
              pushgate pair --remove <installation_id>                unpair one
            """
    )

    @OptionGroup var gateway: GatewayCallOptions

    @Option(
        help:
            "The file of the phones paired on this machine, as pushgate hook's --pins (default: beside the secret file)."
    )
    var pins: String?

    @Option(help: "Seconds the pairing stays open (1 to 3600, default 600).")
    var wait: Int = 600

    @Option(help: "Seconds a call to the gateway may take (default 10).")
    var timeout: Double = 10

    @Flag(help: "Print one JSON line when the pairing opens and one when a phone is paired.")
    var json = false

    @Flag(help: "List the phones paired on this machine, and exit.")
    var list = false

    @Option(help: ArgumentHelp("Unpair an installation, and exit.", valueName: "installation_id"))
    var remove: String?

    @Option(help: ArgumentHelp("The phone's half, from a shell: complete the pairing of this link.", valueName: "link"))
    var join: String?

    @Option(help: "With --join: the phone's installation id.")
    var installationId: String?

    @Option(help: "With --join: the phone's decision key file (made by pushgate subscribe --decision-key-file).")
    var decisionKeyFile: String?

    func validate() throws {
        guard (1...3_600).contains(wait) else { throw ValidationError("--wait takes seconds from 1 to 3600") }
        if join != nil, installationId == nil || decisionKeyFile == nil {
            throw ValidationError("--join needs --installation-id and --decision-key-file")
        }
    }

    func run() async throws {
        let pinFile = gateway.pinFile(option: pins)
        if list { return try PairedPhonesListing(pins: pinFile, json: json).print() }
        if let remove { return try unpair(remove, in: pinFile) }
        let timeout = Duration.seconds(try GatewayCallOptions.checked(timeout: timeout))
        if let join, let installationId, let decisionKeyFile {
            return try await PairingJoin(
                gateway: gateway, link: join, installationID: installationId, keyFile: decisionKeyFile, json: json
            ).run(timeout: timeout)
        }
        try await pair(pins: pinFile, timeout: timeout)
    }

    private func pair(pins: PinFile, timeout: Duration) async throws {
        // Unreadable pins are refused now, not after the person has paired a phone.
        do {
            _ = try pins.read()
        } catch {
            throw CommandFailure("the pin file \(pins.path) \(error)")
        }
        let pairing = PhonePairing(gateway: try gateway.agentGateway(), pins: pins, callTimeout: timeout)
        let opened: PhonePairing.Opened
        do {
            opened = try await pairing.open(for: wait)
        } catch {
            throw CommandFailure(error.description)
        }
        show(opened)
        let json = self.json
        let ending = await pairing.wait(for: opened) { refusal in
            StandardError.write("pushgate pair: refused: " + InvisibleCharacters.escaped(refusal) + "\n")
        }
        switch ending {
        case .paired(let phone):
            if json {
                var line: [String: JSONValue] = [
                    "installation_id": .string(phone.installationID), "fingerprint": .string(phone.fingerprint),
                ]
                line["device_name"] = phone.deviceName.map(JSONValue.string)
                Self.printLine(.object(line))
            } else {
                print(
                    "Paired \(phone.deviceName.map { "\"\($0)\" (\(phone.installationID))" } ?? phone.installationID), key fingerprint \(phone.fingerprint)."
                )
                print("Check that the phone shows the same fingerprint. Its decisions are obeyed here from now on.")
            }
        case .expired:
            if json {
                Self.printLine(["pairing_id": .string(opened.pairingID), "expired": true])
            } else {
                print("The pairing expired: no phone was paired.")
            }
            throw ExitCode.failure
        case .failed(let reason):
            throw CommandFailure(reason)
        }
    }

    /// What the person is shown: the QR code, the code, the link.
    private func show(_ opened: PhonePairing.Opened) {
        if json {
            Self.printLine([
                "pairing_id": .string(opened.pairingID), "code": .string(opened.code.text),
                "link": .string(opened.link.text), "expires_at": .string(opened.expiresAt),
            ])
            return
        }
        print("Pair a phone with this machine: scan the code with the phone's camera, or type the code in the app.\n")
        for line in TerminalQRCode.lines(of: opened.link.text, colours: isatty(1) == 1) ?? [] { print("  " + line) }
        print("\n  Code: \(opened.code.grouped)")
        print("  Link: \(opened.link.text)")
        print("\nOpen until \(opened.expiresAt). Waiting for the phone…")
        fflush(nil)
    }

    private func unpair(_ installationID: String, in pins: PinFile) throws {
        let removed = try pins.update { $0.remove(installationID) }
        guard removed else { throw CommandFailure("\(installationID) is not paired here (pushgate pair --list)") }
        print("Unpaired \(installationID): its decisions are no longer obeyed here.")
    }

    /// One JSON line, flushed: a program reading it as it comes sees it at once.
    static func printLine(_ value: JSONValue) {
        print((try? value.encodedBytes()).map { String(decoding: $0, as: UTF8.self) } ?? "{}")
        fflush(nil)
    }
}
