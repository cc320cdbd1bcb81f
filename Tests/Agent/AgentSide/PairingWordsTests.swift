import Foundation
import PushgateAgentSide
import PushgateSealing
import Testing

/// The words a pairing is carried in (issue 82): the code, the link, the pins, and the
/// lines `pushgate mcp` reads.
@Suite("Codes, links, pins and lines")
struct PairingWordsTests {
    @Test("a made code: 12 symbols of Crockford's alphabet, in three groups of 4")
    func madeCode() {
        for _ in 0..<100 {
            let code = PairingCode.make()
            #expect(code.text.count == 12 && code.text.allSatisfy { PairingCode.alphabet.contains($0) })
            #expect(code.grouped.split(separator: "-").map(\.count) == [4, 4, 4])
        }
        #expect(Set((0..<1000).map { _ in PairingCode.make() }).count == 1000)
    }

    @Test("a typed code reads as the link carries it: any case, spaces and hyphens, I and L as 1, O as 0")
    func typedCode() {
        let code = PairingCode(typed: "7KQ2M9XD4TRB")
        for typed in ["7kq2-m9xd-4trb", " 7KQ2 M9XD 4TRB ", "7kq2m9xd4trb"] {
            #expect(PairingCode(typed: typed) == code, "\(typed)")
        }
        #expect(PairingCode(typed: "ILO0-0000-0000")?.text == "11000000" + "0000")
        for bad in [
            "7KQ2-M9XD-4TRU", "short", "", String(repeating: "A", count: 65), "7KQ2_M9XD_4TRB", "7KQ2\u{0}M9XD4TRB",
        ] {
            #expect(PairingCode(typed: bad) == nil, "\(bad)")
        }
    }

    @Test("a link carries a gateway URL with its own query whole, and reads back the same; others are refused")
    func link() throws {
        let code = try #require(PairingCode(typed: "7KQ2-M9XD-4TRB"))
        let link = PairingLink(
            gateway: "https://push.example.com:8443/base?x=1&y=a+b", pairingID: "0123456789abcdef0123456789abcdef",
            code: code)
        #expect(link.text.contains("code=7KQ2M9XD4TRB"))
        #expect(PairingLink(link.text) == link)
        for bad in [
            "https://pair?gateway=x&pairing=y&code=7KQ2M9XD4TRB", "pushgate://pair?gateway=x&pairing=y",
            "pushgate://pair?gateway=x&pairing=y&code=UUUU", "pushgate://other?gateway=x&pairing=y&code=7KQ2M9XD4TRB",
            "not a link",
        ] {
            #expect(PairingLink(bad) == nil, "\(bad)")
        }
    }

    @Test(
        "pins kept from before pairing (trust on first use) stay valid; the new file reads back the same, and old readers' pins are in it"
    )
    func pinFileForms() throws {
        let phone = FakePhone(installationID: "phone")
        let old = #"{"pins": {"phone": "\#(phone.decisionKey.text)"}}"#
        let read = try DecisionPins(file: Array(old.utf8))
        #expect(read["phone"]?.key == phone.decisionKey && read["phone"]?.pairedAt == nil)
        var pins = read
        pins.pin(phone.decisionKey, of: "tablet", deviceName: "Tab", at: Date(timeIntervalSince1970: 1_795_000_000))
        let again = try DecisionPins(file: pins.file)
        #expect(again == pins)
        let object = try JSONSerialization.jsonObject(with: Data(pins.file)) as? [String: Any]
        #expect((object?["pins"] as? [String: String])?["tablet"] == phone.decisionKey.text)
        #expect(throws: DecisionPins.Unreadable.self) {
            try DecisionPins(file: Array(#"{"pins": {"x": "nokey"}}"#.utf8))
        }
        #expect(throws: DecisionPins.Unreadable.self) { try DecisionPins(file: Array("[]".utf8)) }
    }

    @Test("sixteen updates at once, each under the lock with a re-read: every pin is kept, the file 0600")
    func concurrentUpdates() async throws {
        let pins = ScratchPins()
        let phones = (0..<16).map { FakePhone(installationID: "phone-\($0)") }
        let file = pins.file
        await withTaskGroup(of: Void.self) { group in
            for phone in phones {
                group.addTask {
                    // Threads of their own: the lock blocks.
                    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                        Thread.detachNewThread {
                            _ = try? file.update {
                                $0.pin(phone.decisionKey, of: phone.installationID, deviceName: nil, at: Date())
                            }
                            done.resume()
                        }
                    }
                }
            }
        }
        let read = try file.read()
        #expect(read.phones.count == 16, "\(read.phones.keys.sorted())")
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("lines: split in linear time however they come; a line over the limit refused once, the next read")
    func lines() {
        var splitter = LineSplitter(limit: 16)
        var found: [LineSplitter.Line] = []
        for chunk in ["{\"a\":1}\n{\"b\"", ":2}\r\n", String(repeating: "x", count: 40), "yy\n{\"c\":3}\n\n"] {
            found += splitter.lines(in: ArraySlice(Array(chunk.utf8)))
        }
        #expect(
            found == [
                .message(Array("{\"a\":1}".utf8)), .message(Array("{\"b\":2}".utf8)), .overlong,
                .message(Array("{\"c\":3}".utf8)),
            ])
        // 4 MiB in 4 KiB reads: each byte looked at once (quadratic was 21 s of CPU).
        var big = LineSplitter(limit: 1 << 20)
        let chunk = ArraySlice([UInt8](repeating: UInt8(ascii: "x"), count: 4096))
        let started = ContinuousClock.now
        var overlong = 0
        for _ in 0..<1024 { overlong += big.lines(in: chunk).count }
        overlong += big.lines(in: ArraySlice(Array("\n{}\n".utf8))).filter { $0 == .overlong }.count
        #expect(overlong == 1)
        #expect(started.duration(to: .now) < .seconds(5))
    }
}
