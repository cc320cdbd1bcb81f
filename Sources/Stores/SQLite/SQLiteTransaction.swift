import GRDB
import PushgateCore

/// A ``DocumentTransaction`` on the writer's connection, inside the write
/// transaction of ``SQLiteDocumentStore/runTransaction(_:)``.
struct SQLiteTransaction: DocumentTransaction {
    let db: Database

    func documents(at paths: [DocumentPath]) throws -> [Document] {
        try storeErrors { try SQLiteDocumentStore.documents(db, at: paths) }
    }

    func count(in collection: CollectionPath, upTo limit: Int) throws -> Int {
        try storeErrors { try SQLiteDocumentStore.count(db, in: collection, upTo: limit) }
    }

    func documents(inGroup collectionID: String, under scope: DocumentPath?, where filter: FieldFilter) throws
        -> [Document]
    {
        try storeErrors {
            try SQLiteGroupQuery(collectionID, under: scope, where: filter, after: nil, limit: nil).documents(db)
        }
    }

    /// The update's errors reach its caller as they are; a read's must be the
    /// store's, as the store's own reads give them.
    private func storeErrors<T>(_ read: () throws -> T) throws -> T {
        do {
            return try read()
        } catch let error as DocumentStoreError {
            throw error
        } catch {
            throw DocumentStoreError.unavailable(SQLiteDatabase.describe(error))
        }
    }
}
