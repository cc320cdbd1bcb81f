import PushgateCore

/// The tokens an expansion's pages have stored, so that a later page leaves out a
/// phone an earlier one reached (a reinstall keeps its token under a new
/// installation id, and the two ids may be pages apart).
///
/// Kept by the expander rather than asked of the store: an index by token takes
/// every page's tokens in random order, and its upkeep cost more than the rest of a
/// page's write. Each token is kept as 128 bits (16 bytes, where the token is 64 to
/// 160 characters), so a million-device agent holds about 32 MiB: a keyed hash
/// (SipHash, this process's own key, so nobody can make two tokens collide on
/// purpose) beside the token's length and last eight bytes. Two tokens of a million
/// colliding in the hash alone is a chance of about one in 4×10^7; in the length
/// and tail as well, far less. One pass over the token: a second keyed hash for the
/// other 64 bits took as long as the first (1.3 % of an FCM fan-out's CPU).
struct ExpandedTokens {
    private struct Digest: Hashable {
        let hash: Int
        let tail: UInt64

        init(_ token: String) {
            var hasher = Hasher()
            hasher.combine(token)
            hash = hasher.finalize()
            let bytes = token.utf8
            var tail: UInt64 = 0
            for byte in bytes.suffix(8) { tail = tail << 8 | UInt64(byte) }
            // The length mixed in (a golden-ratio multiple): it is not among the eight bytes.
            self.tail = tail ^ UInt64(truncatingIfNeeded: bytes.count) &* 0x9E37_79B9_7F4A_7C15
        }

        // `hash` is a keyed hash already.
        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    }

    private var digests = Set<Digest>()

    /// Tokens read back per query when an expansion is taken over.
    static let readPage = 10_000

    /// What the pages of `notificationID` stored so far: nothing for an expansion just
    /// accepted, every page of the worker that died for one taken over.
    static func stored(for notificationID: String, in outbox: any OutboxExpansions) async throws -> ExpandedTokens {
        var tokens = ExpandedTokens()
        var after: String?
        while true {
            let page = try await outbox.deliveryTokens(of: notificationID, after: after, limit: readPage)
            for (_, token) in page { tokens.digests.insert(Digest(token)) }
            guard page.count == readPage, let last = page.last else { return tokens }
            after = last.installationID
        }
    }

    /// The deliveries whose token no earlier page (nor an earlier one of these) had,
    /// in their order; their tokens are kept from now on.
    mutating func admit(_ deliveries: [OutboxDelivery]) -> [OutboxDelivery] {
        deliveries.filter { digests.insert(Digest($0.token.value)).inserted }
    }
}
