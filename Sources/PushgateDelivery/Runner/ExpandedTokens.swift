import PushgateCore

/// The tokens an expansion's pages have stored, so that a later page leaves out a
/// phone an earlier one reached (a reinstall keeps its token under a new
/// installation id, and the two ids may be pages apart).
///
/// Kept by the expander rather than asked of the store: an index by token takes
/// every page's tokens in random order, and its upkeep cost more than the rest of a
/// page's write. Each token is kept as 128 bits of a keyed hash (16 bytes, where the
/// token is 64 to 160 characters), so a million-device agent holds about 32 MiB;
/// two tokens colliding in all 128 bits, among a million, is a chance of about one
/// in 10^27.
struct ExpandedTokens {
    private struct Digest: Hashable {
        let first: Int
        let second: Int

        init(_ token: String) {
            var first = Hasher()
            first.combine(token)
            var second = Hasher()
            second.combine(UInt8(1))
            second.combine(token)
            self.first = first.finalize()
            self.second = second.finalize()
        }

        // `first` is a keyed hash already.
        func hash(into hasher: inout Hasher) { hasher.combine(first) }
    }

    private var digests = Set<Digest>()

    /// Tokens read back per query when an expansion is taken over.
    static let readPage = 10_000

    /// What the pages of `notificationID` stored so far: nothing for an expansion just
    /// accepted, every page of the worker that died for one taken over.
    static func stored(for notificationID: String, in outbox: any Outbox) async throws -> ExpandedTokens {
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
