import Foundation
import PushgateAgentSide
import PushgateCore
import PushgateSealing

/// `pushgate pair --list`: the phones paired on this machine, a line each — the
/// installation, its name, its key's fingerprint, when it was paired (or that its pin
/// was kept from before pairing: review those, and pair them again or remove them).
struct PairedPhonesListing {
    let pins: PinFile
    let json: Bool

    func print() throws {
        let paired: DecisionPins
        do {
            paired = try pins.read()
        } catch {
            throw CommandFailure("the pin file \(pins.path) \(error)")
        }
        if paired.isEmpty, !json { Swift.print("No phone is paired here (\(pins.path)): pushgate pair pairs one.") }
        for (installationID, pin) in paired.phones.sorted(by: { $0.key < $1.key }) {
            if json {
                var line: [String: JSONValue] = [
                    "installation_id": .string(installationID), "fingerprint": .string(pin.key.fingerprint),
                ]
                line["device_name"] = pin.deviceName.map(JSONValue.string)
                line["paired_at"] = pin.pairedAt.map(JSONValue.string)
                PairCommand.printLine(.object(line))
            } else {
                let name = pin.deviceName.map { "\"\($0)\"" } ?? "-"
                let when = pin.pairedAt.map { "paired \($0)" } ?? "pinned before pairing: review it"
                Swift.print("\(installationID)  \(name)  \(pin.key.fingerprint)  \(when)")
            }
        }
    }
}
