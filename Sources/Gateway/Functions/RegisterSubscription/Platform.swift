import PushgateCore

/// The platform a device registers from (`web`: a browser, through Web Push).
public enum Platform: String, Sendable, Hashable, CaseIterable {
    case ios, ipados, macos, android, web
}
