import PushgateAPNs
import PushgateCore
import PushgateFCM
import PushgateInstalledServices
import PushgateWebPush
import Testing

/// The push services as the rest of the gateway sees them: ids, address formats,
/// and a device's addresses read through them.
@Suite("Push services: ids and address formats")
struct PushAddressFormatsTests {
    @Test(
        "a service id is a lower-case letter then up to 15 letters or digits",
        arguments: [
            ("apns", true), ("fcm", true), ("webpush", true), ("up2", true), ("a234567890123456", true),
            ("", false), ("a2345678901234567", false), ("APNs", false), ("2fa", false), ("web-push", false),
            ("fcm ", false), ("é", false),
        ])
    func serviceIDs(text: String, valid: Bool) {
        #expect((PushServiceID(rawValue: text) != nil) == valid)
    }

    @Test("each installed service declares a valid id of its own, its fields named after it")
    func installedIDs() {
        let services = PushAddressFormats.installed.all.map(\.service)
        #expect(services.allSatisfy { PushServiceID(rawValue: $0.rawValue) == $0 })
        #expect(Set(services).count == services.count)
        #expect(
            services == [.apns, .fcm, .webpush],
            "APNs first: a device with both is delivered through APNs; Web Push after the phones' own services")
        #expect(PushAddressFormats.installed.documentFields == ["apnsToken", "fcmToken", "webpushToken"])
        #expect(PushAddressFormats.installed.registrationFieldsInWords == "'apns_token', 'fcm_token' or 'webpush'")
    }

    @Test("a look-up by token: an APNs token in any case reads as stored; FCM's as given; other text names none")
    func lookups() {
        let hex = String(repeating: "Ab", count: 32)
        #expect(APNsAddress.format.stored(hex) == hex.lowercased())
        #expect(!APNsAddress.format.isStored(hex) && APNsAddress.format.isStored(hex.lowercased()))
        #expect(APNsAddress.format.stored("abc") == nil)
        #expect(FCMAddress.format.stored("a:b") == "a:b")
        #expect(FCMAddress.format.stored("a b") == nil)
    }

    @Test("a device's addresses in the formats' order; its environment kept only for a service that has them")
    func deviceRecord() throws {
        let hex = String(repeating: "ab", count: 32)
        let path = try DocumentPath(rawValue: "servers/s/agents/a/devices/phone")
        let both = DeviceRecord(
            document: Document(
                path: path,
                fields: ["fcmToken": "f", "apnsToken": .string(hex), "apnsEnvironment": "sandbox"]),
            formats: .installed)
        #expect(both.deliveryToken == .apns(hex))
        #expect(both.addresses == [.apns(hex), .fcm("f")])
        #expect(both.route.environment == .sandbox)
        let fcmOnly = DeviceRecord(
            document: Document(path: path, fields: ["fcmToken": "f", "apnsEnvironment": "sandbox", "bundleId": "b"]),
            formats: .installed)
        #expect(fcmOnly.deliveryToken == .fcm("f"))
        #expect(fcmOnly.route == DeliveryRoute(app: "b"))
        let same = DeviceRecord(
            document: Document(path: path, fields: ["fcmToken": .string(hex), "apnsToken": .string(hex)]),
            formats: .installed)
        #expect(same.tokens == [hex], "each text once")
        let none = DeviceRecord(document: Document(path: path, fields: ["pigeonToken": "x"]), formats: .installed)
        #expect(none.deliveryToken == nil, "a field of a service this build does not have is not an address")
    }
}
