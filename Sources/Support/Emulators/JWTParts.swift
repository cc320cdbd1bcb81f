import Foundation
import PushgateCore
import PushgateSealing

/// A JSON Web Token taken apart for checking: its header and claims as JSON, what
/// was signed, and the signature's bytes. `nil` when it is not three base64url
/// parts of which the first two are JSON objects.
struct JWTParts {
    let header: [String: JSONValue]
    let claims: [String: JSONValue]
    let signingInput: Data
    let signature: Data

    init?(_ token: some StringProtocol) {
        let pieces = token.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count == 3,
            let headerData = Base64URL.decode(pieces[0]), let claimsData = Base64URL.decode(pieces[1]),
            let signature = Base64URL.decode(pieces[2]),
            case .object(let header)? = try? JSONValue.parse(Array(headerData)),
            case .object(let claims)? = try? JSONValue.parse(Array(claimsData))
        else { return nil }
        self.header = header
        self.claims = claims
        self.signingInput = Data("\(pieces[0]).\(pieces[1])".utf8)
        self.signature = signature
    }

    /// A numeric claim (`iat`, `exp`), when it is a whole number.
    func seconds(_ claim: String) -> Double? {
        guard case .number(let value)? = claims[claim], value == value.rounded() else { return nil }
        return value
    }

    /// A time claim as APNs reads it: a number, whole or not, or a string of one
    /// (APNSwift sends `iat` quoted, and APNs accepts it).
    func looseSeconds(_ claim: String) -> Double? {
        let value: Double? =
            switch claims[claim] {
            case .number(let number)?: number
            case .string(let text)?: Double(text)
            default: nil
            }
        return value.flatMap { $0.isFinite ? $0 : nil }
    }
}
