-- The index: sources and their verdicts, documents pinned to commits, chunks, and the FTS5
-- index over chunks. Never edit this file once released; add a new numbered migration.

CREATE TABLE sources (
    name            TEXT PRIMARY KEY,          -- what citations and /sources call it
    origin          TEXT NOT NULL,             -- 'local' or 'gitlab'
    location        TEXT NOT NULL,             -- a path on disk, or the project's web URL
    verdict         TEXT NOT NULL CHECK (verdict IN ('admitted', 'rejected', 'unresolved')),
    clause          TEXT NOT NULL,             -- the predicate clause that decided the verdict
    detail          TEXT NOT NULL DEFAULT '',
    web_url         TEXT,                      -- for blob links; NULL for local sources
    site_url        TEXT,
    default_branch  TEXT,
    branch_commit   TEXT,                      -- what docs were indexed from
    release_tag     TEXT,
    release_commit  TEXT,                      -- what code was indexed from
    corpus_version  INTEGER,                   -- chunking rules the documents were cut with
    checked_at      TEXT,                      -- last time the verdict was decided
    indexed_at      TEXT,                      -- last time documents were (re)written
    refreshed_at    TEXT,                      -- last successful refresh, changed or not
    last_error      TEXT,
    last_error_at   TEXT
);

CREATE TABLE documents (
    id           INTEGER PRIMARY KEY,
    source       TEXT NOT NULL REFERENCES sources (name) ON DELETE CASCADE,
    path         TEXT NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('doc', 'readme', 'changelog', 'code', 'markdown')),
    title        TEXT NOT NULL DEFAULT '',
    page_url     TEXT,                         -- docs: the page on the public site
    commit_sha   TEXT NOT NULL,                -- the commit this document was read from
    content_sha  TEXT NOT NULL,                -- the blob it was read from
    fingerprint  TEXT NOT NULL,                -- content, kind and citation rules together
    indexed_at   TEXT NOT NULL,
    UNIQUE (source, path)
);

-- An explicit INTEGER PRIMARY KEY: implicit rowids are not stable across VACUUM, and the
-- FTS index refers to chunks by id.
CREATE TABLE chunks (
    id            INTEGER PRIMARY KEY,
    document_id   INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    ordinal       INTEGER NOT NULL,
    heading       TEXT NOT NULL,              -- the section's own heading, or the symbol's title
    heading_path  TEXT NOT NULL,              -- ancestors and own heading, joined with ' › '
    heading_terms TEXT NOT NULL DEFAULT '',   -- search-only: the heading's identifiers split
    terms         TEXT NOT NULL DEFAULT '',   -- search-only: split identifiers, never shown
    body          TEXT NOT NULL,
    anchor        TEXT NOT NULL DEFAULT '',
    symbol        TEXT NOT NULL DEFAULT '',
    start_line    INTEGER NOT NULL,
    end_line      INTEGER NOT NULL,
    start_byte    INTEGER NOT NULL,
    end_byte      INTEGER NOT NULL,
    weight        REAL NOT NULL DEFAULT 1.0   -- ranking multiplier (lists of links rank lower)
);
CREATE INDEX chunks_by_document ON chunks (document_id);

-- Two full-text indexes rather than one: FTS5's BM25 normalises by the length of the whole
-- row, so in a single table a long section is penalised even where its heading matches. Kept
-- apart, a heading is judged against headings and a body against bodies.
CREATE VIRTUAL TABLE chunks_head_fts USING fts5 (
    heading, heading_terms, heading_path,
    content = 'chunks', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE VIRTUAL TABLE chunks_body_fts USING fts5 (
    terms, body,
    content = 'chunks', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER chunks_after_insert AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_head_fts (rowid, heading, heading_terms, heading_path)
    VALUES (new.id, new.heading, new.heading_terms, new.heading_path);
    INSERT INTO chunks_body_fts (rowid, terms, body) VALUES (new.id, new.terms, new.body);
END;

CREATE TRIGGER chunks_after_delete AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_head_fts (chunks_head_fts, rowid, heading, heading_terms, heading_path)
    VALUES ('delete', old.id, old.heading, old.heading_terms, old.heading_path);
    INSERT INTO chunks_body_fts (chunks_body_fts, rowid, terms, body)
    VALUES ('delete', old.id, old.terms, old.body);
END;

CREATE TRIGGER chunks_after_update AFTER UPDATE ON chunks BEGIN
    INSERT INTO chunks_head_fts (chunks_head_fts, rowid, heading, heading_terms, heading_path)
    VALUES ('delete', old.id, old.heading, old.heading_terms, old.heading_path);
    INSERT INTO chunks_body_fts (chunks_body_fts, rowid, terms, body)
    VALUES ('delete', old.id, old.terms, old.body);
    INSERT INTO chunks_head_fts (rowid, heading, heading_terms, heading_path)
    VALUES (new.id, new.heading, new.heading_terms, new.heading_path);
    INSERT INTO chunks_body_fts (rowid, terms, body) VALUES (new.id, new.terms, new.body);
END;
