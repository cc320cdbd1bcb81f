import PushgateCore

/// For tests that write devices straight into a store: the server document a
/// registration would have made (a trigger reaches only a namespace that a
/// registration made).
public enum SeededNamespace {
    public static func server(_ serverKey: ServerKey) -> DocumentWrite {
        .set(
            NamespacePaths.server(serverKey),
            [FieldName.createdAt: .valueIfAbsent(.string("2026-11-22T00:00:00.000Z"))])
    }
}
