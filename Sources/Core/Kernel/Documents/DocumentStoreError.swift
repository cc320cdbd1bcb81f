/// Why a store operation failed. The description names the problem without
/// document contents, so it is safe to log.
public struct DocumentStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case invalidPath
        case invalidFieldName
        case unavailable
        case corruptDocument
    }

    private let code: Code
    public let detail: String

    private init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// A path or path segment breaks the id rules.
    public static func invalidPath(_ detail: String) -> Self { .init(.invalidPath, detail) }
    /// A field name in a query is not a plain identifier.
    public static func invalidFieldName(_ detail: String) -> Self { .init(.invalidFieldName, detail) }
    /// The backing database could not be opened or answered with an error.
    public static func unavailable(_ detail: String) -> Self { .init(.unavailable, detail) }
    /// A stored document could not be read back as a JSON object.
    public static func corruptDocument(_ detail: String) -> Self { .init(.corruptDocument, detail) }

    public var isInvalidPath: Bool { code == .invalidPath }
    public var isUnavailable: Bool { code == .unavailable }

    public var description: String {
        switch code {
        case .invalidPath: "invalid document path: \(detail)"
        case .invalidFieldName: "invalid field name: \(detail)"
        case .unavailable: "document store unavailable: \(detail)"
        case .corruptDocument: "corrupt document: \(detail)"
        }
    }
}
