-- How many documents each collection holds, kept by triggers in the transaction
-- that inserts or deletes them: a cap (devices per agent, agents per server) reads
-- one row instead of counting an index range that grows with the collection (an
-- agent of 10,000 devices: some 770 index pages for every new device). Every write
-- of a document goes through these two statements' triggers; `parent` is derived
-- from the primary key and never updated. (INSERT OR REPLACE would delete without
-- its trigger: the store never uses it on documents.)
CREATE TABLE collection_counts (
    parent TEXT NOT NULL PRIMARY KEY,
    documents INTEGER NOT NULL CHECK (documents > 0)
) WITHOUT ROWID;

INSERT INTO collection_counts (parent, documents)
SELECT parent, COUNT(*) FROM documents GROUP BY parent;

CREATE TRIGGER documents_counted_in AFTER INSERT ON documents
BEGIN
    INSERT INTO collection_counts (parent, documents) VALUES (NEW.parent, 1)
    ON CONFLICT (parent) DO UPDATE SET documents = documents + 1;
END;

CREATE TRIGGER documents_counted_out AFTER DELETE ON documents
BEGIN
    DELETE FROM collection_counts WHERE parent = OLD.parent AND documents = 1;
    UPDATE collection_counts SET documents = documents - 1 WHERE parent = OLD.parent;
END;
