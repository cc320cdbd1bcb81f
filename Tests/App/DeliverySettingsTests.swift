import PushgateDelivery
import PushgateFunctions
import PushgateServer
import Testing

@Suite("Delivery settings as given by flags, PUSHGATE_* or the file")
struct DeliverySettingsTests {
    @Test("nothing given: the defaults (reminders at 15 min and 1 h, no coalescing)")
    func defaults() throws {
        let policy = try SettingSources().deliveryPolicy()
        #expect(policy == DeliveryPolicy())
        #expect(policy.escalation == [.seconds(900), .seconds(3600)])
        #expect(policy.coalesceWindow == nil)
    }

    @Test(
        "escalation schedules",
        arguments: [
            ("5m,30m,2h", [300, 1800, 7200]), ("90s", [90]), ("none", []), ("", []), (" 1m , 2m ", [60, 120]),
        ] as [(String, [Int64])]
    )
    func schedules(text: String, seconds: [Int64]) throws {
        let policy = try SettingSources(environment: ["PUSHGATE_ESCALATION_SCHEDULE": text]).deliveryPolicy()
        #expect(policy.escalation == seconds.map { .seconds($0) })
    }

    @Test(
        "coalescing windows",
        arguments: [("3", 3_000), ("3s", 3_000), ("0.5", 500), ("off", nil), ("0", nil)]
            as [(String, Int64?)])
    func windows(text: String, milliseconds: Int64?) throws {
        let policy = try SettingSources(environment: ["PUSHGATE_COALESCE_WINDOW": text]).deliveryPolicy()
        #expect(policy.coalesceWindow == milliseconds.map { .milliseconds($0) })
    }

    @Test("preview default: show (the seed's rule) unless hide; the trigger wait stays inside the proxy's 2.5 s")
    func previewDefault() throws {
        #expect(try SettingSources().deliveryPolicy().showsPreviewByDefault)
        #expect(
            try !SettingSources(environment: ["PUSHGATE_PREVIEW_DEFAULT": "hide"]).deliveryPolicy()
                .showsPreviewByDefault)
        #expect(
            try SettingSources(environment: ["PUSHGATE_PREVIEW_DEFAULT": "Show"]).deliveryPolicy().showsPreviewByDefault
        )
        #expect(DeliveryPolicy().triggerWait <= .seconds(2))
    }

    @Test("a trigger's answer lists up to 1,000 devices unless told otherwise")
    func answerMaxDevices() throws {
        #expect(try SettingSources().deliveryPolicy().answerMaxDevices == 1_000)
        #expect(
            try SettingSources(environment: ["PUSHGATE_ANSWER_MAX_DEVICES": "50"]).deliveryPolicy().answerMaxDevices
                == 50)
    }

    @Test(
        "stale device days: 90 by default, 0 never",
        arguments: [(nil, 90), ("30", 30), ("0", nil)] as [(String?, Int64?)])
    func staleDeviceDays(text: String?, days: Int64?) throws {
        let policy = try SettingSources(environment: text.map { ["PUSHGATE_STALE_DEVICE_DAYS": $0] } ?? [:])
            .deliveryPolicy()
        #expect(policy.staleDeviceAge == days.map { .seconds($0 * 86_400) })
    }

    @Test(
        "a bad value stops the start with one line naming the setting",
        arguments: [
            (SettingSources(environment: ["PUSHGATE_ESCALATION_SCHEDULE": "1h,15m"]), "PUSHGATE_ESCALATION_SCHEDULE"),
            (
                SettingSources(environment: ["PUSHGATE_ESCALATION_SCHEDULE": "15 minutes"]),
                "PUSHGATE_ESCALATION_SCHEDULE"
            ),
            (
                SettingSources(environment: ["PUSHGATE_ESCALATION_SCHEDULE": "1m,2m,3m,4m,5m,6m"]),
                "PUSHGATE_ESCALATION_SCHEDULE"
            ),
            (SettingSources(environment: ["PUSHGATE_COALESCE_WINDOW": "soon"]), "PUSHGATE_COALESCE_WINDOW"),
            (SettingSources(environment: ["PUSHGATE_COALESCE_WINDOW": "3600"]), "PUSHGATE_COALESCE_WINDOW"),
            (SettingSources(environment: ["PUSHGATE_TRIGGER_WAIT": "-1"]), "PUSHGATE_TRIGGER_WAIT"),
            (SettingSources(environment: ["PUSHGATE_DELIVERY_MAX_ATTEMPTS": "0"]), "PUSHGATE_DELIVERY_MAX_ATTEMPTS"),
            (SettingSources(environment: ["PUSHGATE_ANSWER_MAX_DEVICES": "-1"]), "PUSHGATE_ANSWER_MAX_DEVICES"),
            (SettingSources(environment: ["PUSHGATE_ANSWER_MAX_DEVICES": "many"]), "PUSHGATE_ANSWER_MAX_DEVICES"),
            (SettingSources(environment: ["PUSHGATE_PREVIEW_DEFAULT": "maybe"]), "PUSHGATE_PREVIEW_DEFAULT"),
            (SettingSources(environment: ["PUSHGATE_STALE_DEVICE_DAYS": "-1"]), "PUSHGATE_STALE_DEVICE_DAYS"),
            (SettingSources(environment: ["PUSHGATE_STALE_DEVICE_DAYS": "ninety"]), "PUSHGATE_STALE_DEVICE_DAYS"),
        ])
    func refused(settings: SettingSources, name: String) {
        #expect {
            _ = try settings.deliveryPolicy()
        } throws: { error in
            let message = "\(error)"
            return message.contains(name) && !message.contains("\n")
        }
    }
}
