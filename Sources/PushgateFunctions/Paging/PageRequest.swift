import PushgateCore

/// A checked `page_size` and `page_token` of a paged listing (`/subscriptions`,
/// `/diagnostics`). Pages follow each other in agent-key order; a token is the key
/// the previous page ended with, which stays valid while agents come and go (a
/// page never repeats or skips an agent that was there throughout).
public struct PageRequest: Sendable, Hashable {
    /// The largest page, and the size when none is asked: a client that never pages
    /// (the app) sees up to this many agents in one answer, as before paging.
    public static let maxSize = 500

    public let size: Int
    /// Where the page starts: after this agent key, or at the start when `nil`.
    public let afterAgentKey: String?

    public init(size: String?, token: String?) throws(FunctionError) {
        if let size {
            // Plain decimal only ("7", not "+7" or "07"), as the schema says.
            guard size.utf8.first != UInt8(ascii: "0"), size.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let value = Int(size), (1...Self.maxSize).contains(value)
            else {
                throw .invalidArgument(
                    "'page_size' must be a whole number from 1 to \(Self.maxSize)", field: "page_size")
            }
            self.size = value
        } else {
            self.size = Self.maxSize
        }
        if let token {
            guard token.utf8.count == 64,
                token.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
            else {
                throw .invalidArgument("'page_token' is not one this gateway gave", field: "page_token")
            }
        }
        self.afterAgentKey = token
    }

    /// How many to read: one more than a page, to know whether another follows.
    var readLimit: Int { size + 1 }

    /// The page out of what was read (at most ``readLimit`` items, in agent-key
    /// order), and the token of the next page when there is one.
    func cut<Item>(_ read: [Item], agentKey: (Item) -> String) -> (items: [Item], nextPageToken: String?) {
        guard read.count > size else { return (read, nil) }
        let page = Array(read.prefix(size))
        return (page, page.last.map(agentKey))
    }
}
