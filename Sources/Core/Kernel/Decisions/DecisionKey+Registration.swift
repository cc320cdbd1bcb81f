import PushgateSealing

extension DecisionKey {
    /// The key of a registration's field `field` (`decision_key`); a key that is no
    /// uncompressed point on P-256 is the request error naming it.
    public init(registered text: String, field: String) throws(FunctionError) {
        guard let key = DecisionKey(text) else {
            throw .invalidArgument(
                "'\(field)' must be the base64url of an uncompressed P-256 public key (65 bytes, X9.63)", field: field)
        }
        self = key
    }
}
