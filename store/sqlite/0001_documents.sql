-- Documents addressed by their full path, Firestore style:
-- servers/{serverKey}/agents/{agentKey}/devices/{installationId}
CREATE TABLE documents (
    -- The full path, segments joined by '/'.
    path TEXT NOT NULL PRIMARY KEY,
    -- The path of the collection that holds the document.
    parent TEXT NOT NULL,
    -- The last segment of parent ('devices'): what a collection-group query names.
    collection_id TEXT NOT NULL,
    -- The last segment of path.
    document_id TEXT NOT NULL,
    -- The document's top-level fields, a JSON object.
    fields TEXT NOT NULL CHECK (json_valid(fields) AND json_type(fields) = 'object')
) WITHOUT ROWID;

-- Lists a collection in document-id order without a scan.
CREATE INDEX documents_by_parent ON documents (parent, document_id);

-- Finds the documents of a collection group (by id, or narrowed by a field) without a scan.
CREATE INDEX documents_by_group ON documents (collection_id, document_id);
