import ArgumentParser
import PushgateCore

struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Print a new push secret for CODEAGENTS_PUSH_SECRET.",
        discussion: "32 random bytes, base64. Agent servers and their apps share it; its SHA-256 names the namespace."
    )

    func run() {
        print(PushSecret.generate().value)
    }
}
