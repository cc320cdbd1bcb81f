import PushgateCore
import PushgateInstalledServices
import Testing

@Suite("Metric labels come from fixed sets")
struct MetricLabelTests {
    @Test("the providers' reasons and the gateway's are kept; any other text is 'other'")
    func reasons() {
        let known: Set = ["Unregistered", "UNREGISTERED"]
        #expect(MetricLabel.reason("Unregistered", known: known) == "Unregistered")
        #expect(MetricLabel.reason("UNREGISTERED", known: known) == "UNREGISTERED")
        #expect(MetricLabel.reason("Unregistered") == "other", "a reason no provider lists")
        #expect(MetricLabel.reason("Expired") == "Expired")
        #expect(MetricLabel.reason("no_fcm_provider") == "other", "a service's own: its routing table lists it")
        let formats = PushAddressFormats.installed
        let reasons = Set(formats.all.map(\.unconfiguredReason))
        #expect(reasons == ["no_apns_provider", "no_fcm_provider", "no_webpush_provider"])
        for reason in reasons { #expect(MetricLabel.reason(reason, known: reasons) == reason) }
        #expect(MetricLabel.reason(nil) == "none")
        #expect(MetricLabel.reason("HTTP418", known: known) == "other")
        #expect(MetricLabel.reason(String(repeating: "ab", count: 32), known: known) == "other", "a token-like answer")
    }

    @Test("outcomes by kind, reasons aside")
    func outcomes() {
        #expect(MetricLabel.outcome(.delivered) == "delivered")
        #expect(MetricLabel.outcome(.tokenInvalid(reason: "BadDeviceToken")) == "token_invalid")
        #expect(MetricLabel.outcome(.retryLater(reason: "ServiceUnavailable", after: nil)) == "retry")
        #expect(MetricLabel.outcome(.failed(reason: "PayloadTooLarge")) == "failed")
        #expect(MetricLabel.outcome(.configurationError(reason: "BadTopic")) == "configuration_error")
    }

    @Test("known event types by name; every custom type is 'custom'")
    func eventTypes() {
        #expect(MetricLabel.eventType(.replyFinished) == "reply_finished")
        #expect(MetricLabel.eventType(.approvalRequested) == "approval_requested")
        #expect(MetricLabel.eventType(.custom("deploy_finished")) == "custom")
    }
}
