import PushgateCore

/// A checked `page_size` and `page_token` of a paged listing (`/subscriptions`,
/// `/diagnostics`). Pages follow each other in agent-key order (or, for one agent's
/// devices, installation-id order); a token is the key the previous page ended with
/// (an installation id written in hex: it may hold any printable character), which
/// stays valid while agents come and go (a page never repeats or skips an agent that
/// was there throughout).
public struct PageRequest: Sendable, Hashable {
    /// What the pages are ordered by.
    public enum Order: Sendable, Hashable {
        case agentKey
        case installationID
    }

    /// The largest page, and the size when none is asked: a client that never pages
    /// (the app) sees up to this many agents in one answer, as before paging.
    public static let maxSize = 500

    public let size: Int
    public let order: Order
    /// Where the page starts: after this agent key (or installation id), or at the
    /// start when `nil`.
    public let after: String?

    /// The agent key a page of agents starts after.
    public var afterAgentKey: String? { order == .agentKey ? after : nil }

    public init(size: String?, token: String?, order: Order = .agentKey) throws(FunctionError) {
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
        self.order = order
        guard let token else {
            self.after = nil
            return
        }
        // Any hex is a place in key order, so any passes (as the schema says): a
        // token this gateway did not give starts the page somewhere, never fails.
        guard token.utf8.count <= 256, let bytes = Hex.bytes(token), !bytes.isEmpty else {
            throw .invalidArgument("'page_token' is not one this gateway gave", field: "page_token")
        }
        self.after = order == .agentKey ? token : String(decoding: bytes, as: UTF8.self)
    }

    /// How many to read: one more than a page, to know whether another follows.
    var readLimit: Int { size + 1 }

    /// The page out of what was read (at most ``readLimit`` items, in the page's
    /// order), and the token of the next page when there is one.
    func cut<Item>(_ read: [Item], key: (Item) -> String) -> (items: [Item], nextPageToken: String?) {
        guard read.count > size, let last = read.prefix(size).last else { return (read, nil) }
        let lastKey = key(last)
        return (Array(read.prefix(size)), order == .agentKey ? lastKey : Hex.string(Array(lastKey.utf8)))
    }
}
