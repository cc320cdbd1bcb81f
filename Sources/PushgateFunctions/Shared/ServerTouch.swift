import PushgateCore

/// The write every accepted call makes to its server document: created on first
/// sight, `lastSeenAt` always.
enum ServerTouch {
    static func write(_ serverKey: ServerKey, at timestamp: JSONValue) -> DocumentWrite {
        .set(
            NamespacePaths.server(serverKey),
            [
                FieldName.createdAt: .valueIfAbsent(timestamp),
                FieldName.lastSeenAt: .value(timestamp),
            ]
        )
    }
}
