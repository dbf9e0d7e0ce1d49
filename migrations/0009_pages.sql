-- A full-text index of whole pages of prose: every section of a document that is not code,
-- heading and text, in one row whose rowid is the document's id. The retriever reads how well
-- a section's page as a whole matches a question, to order sections of prose among
-- themselves. The writer adds a document's row with its chunks; deleting the document
-- removes it. Never edit this file once released; add a new numbered migration.

CREATE VIRTUAL TABLE pages_fts USING fts5 (
    text,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER documents_after_delete_page AFTER DELETE ON documents BEGIN
    DELETE FROM pages_fts WHERE rowid = old.id;
END;

-- The pages of an index made before this migration, from the chunks it already holds, in
-- the order writer.page_text joins them: a window ordered by ordinal fixes the order, where
-- group_concat as a plain aggregate leaves it to the query plan.
INSERT INTO pages_fts (rowid, text)
SELECT document_id, text FROM (
    SELECT c.document_id,
           group_concat(c.heading || char(10) || c.body, char(10)) OVER (
               PARTITION BY c.document_id ORDER BY c.ordinal
               ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING
           ) AS text,
           row_number() OVER (PARTITION BY c.document_id ORDER BY c.ordinal) AS n
    FROM chunks c JOIN documents d ON d.id = c.document_id
    WHERE d.kind <> 'code'
)
WHERE n = 1;
