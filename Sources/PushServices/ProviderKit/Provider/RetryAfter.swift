import Foundation
import PushgateCore

/// A `Retry-After` header's delay. Push services send seconds (APNs, FCM); the
/// HTTP-date form is not used by them and reads as no delay.
public enum RetryAfter {
    public static func parse(_ header: String) -> Duration? {
        guard let seconds = Double(header.trimmingCharacters(in: .whitespaces)), seconds >= 0, seconds.isFinite
        else { return nil }
        return .milliseconds(Int64(min(seconds, 86_400) * 1000))
    }
}
