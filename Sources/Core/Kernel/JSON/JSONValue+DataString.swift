extension JSONValue {
    /// The value as a push's string-only `data` map takes it (FCM's, and Web Push's,
    /// which carries the same fields): a string as it is, any other value as its
    /// JSON text (`42`, `true`, `{"a":1}`).
    public var asDataString: JSONValue {
        if case .string = self { return self }
        return .string((try? encodedData()).map { String(decoding: $0, as: UTF8.self) } ?? "")
    }
}
