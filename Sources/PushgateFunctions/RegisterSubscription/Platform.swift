import PushgateCore

/// The platform a device registers from.
public enum Platform: String, Sendable, Hashable, CaseIterable {
    case ios, ipados, macos, android
}
