/// One request as an emulator's own HTTP/2 streams collect it: the pseudo-headers
/// apart, every other header in the order sent (duplicates kept, which APNs refuses).
struct EmulatorRequest: Sendable {
    var method: String
    /// `:path`, as sent (query included).
    var path: String
    var authority: String?
    /// Lower-case names (HTTP/2 allows no other), in the order sent.
    var headers: [(name: String, value: String)]
    var body: [UInt8] = []
    /// The body went past what is collected; the rest was dropped unread.
    var bodyTruncated = false

    /// The first value of the header `name` (lower case).
    func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    /// Keeps up to `limit` bytes of the body; past it, marks the body truncated.
    mutating func append(_ bytes: some Collection<UInt8>, upTo limit: Int) {
        let room = max(0, limit - body.count)
        body.append(contentsOf: bytes.prefix(room))
        if bytes.count > room { bodyTruncated = true }
    }
}

/// What an emulator answers one request with. An answer without a body goes out as
/// one HEADERS frame that ends the stream, as APNs sends a 200.
struct EmulatorAnswer: Sendable {
    var status: Int
    /// Lower-case names.
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []
    /// Told whether the answer was written to the connection (`false`: the
    /// connection or the stream closed first, so the client never got it).
    var written: (@Sendable (Bool) -> Void)?
}
