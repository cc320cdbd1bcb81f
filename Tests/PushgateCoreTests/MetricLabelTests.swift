import PushgateCore
import Testing

@Suite("Metric labels come from fixed sets")
struct MetricLabelTests {
    @Test("APNs's reasons and the gateway's are kept; any other text is 'other'")
    func reasons() {
        #expect(MetricLabel.reason("Unregistered") == "Unregistered")
        #expect(MetricLabel.reason("TooManyRequests") == "TooManyRequests")
        #expect(MetricLabel.reason("Expired") == "Expired")
        #expect(MetricLabel.reason(nil) == "none")
        #expect(MetricLabel.reason("HTTP418") == "other")
        #expect(MetricLabel.reason(String(repeating: "ab", count: 32)) == "other", "a token-like answer")
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
