/// Why a setting's text was refused: the rest of the error's one line after the
/// name of the setting (``SettingReading/name(of:)``), ` must be …, not '…'`.
public struct SettingProblem: Error, Sendable, Hashable {
    public let text: String

    public init(_ text: String) {
        self.text = text
    }

    /// ` must be <what>, not '<given>'`: the usual form.
    public static func mustBe(_ what: String, not given: String) -> SettingProblem {
        SettingProblem(" must be \(what), not '\(given)'")
    }
}
