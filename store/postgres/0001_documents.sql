-- Documents addressed by their full path, Firestore style:
-- servers/{serverKey}/agents/{agentKey}/devices/{installationId}
-- Text columns use the "C" collation: byte order, as SQLite sorts, whatever the
-- database's locale.
CREATE TABLE documents (
    -- The full path, segments joined by '/'.
    path TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    -- The path of the collection that holds the document.
    parent TEXT COLLATE "C" NOT NULL,
    -- The last segment of parent ('devices'): what a collection-group query names.
    collection_id TEXT COLLATE "C" NOT NULL,
    -- The last segment of path.
    document_id TEXT COLLATE "C" NOT NULL,
    -- The document's top-level fields, a JSON object.
    fields JSONB NOT NULL CHECK (jsonb_typeof(fields) = 'object')
);

-- Lists a collection in document-id order without a scan.
CREATE INDEX documents_by_parent ON documents (parent, document_id);

-- Finds the documents of a collection group by id, and counts them, without a scan.
CREATE INDEX documents_by_group ON documents (collection_id, document_id);

-- Narrows a collection-group query by a field's value (fields @> '{"token": "…"}').
CREATE INDEX documents_by_field ON documents USING GIN (fields jsonb_path_ops);
