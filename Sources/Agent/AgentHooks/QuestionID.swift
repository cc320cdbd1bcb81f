/// The id of an event the agent's side waits on (issue 82): made where the agent
/// asks, 128 random bits, so that a decision signed for it answers this question
/// and no other — never another agent's, never an earlier one of the same words.
public enum QuestionID {
    /// A fresh id: `prefix-` and 32 lower-case hex digits.
    public static func make(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        return prefix + "-" + String((0..<32).map { _ in digits[Int(generator.next() % 16)] })
    }
}
