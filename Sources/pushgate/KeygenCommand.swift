import ArgumentParser
import PushgateCore

struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Print a new push secret (32 random bytes, base64) for CODEAGENTS_PUSH_SECRET."
    )

    func run() {
        print(PushSecret.generate().value)
    }
}
