-- What was asked and what came of it: every question with the passages it was given, its
-- outcome (an answer, a decline with its reason, passages only, or an error), the citations
-- of an answer, and the feedback votes on it. Declines are the documentation-gap backlog.
-- Never edit this file once released; add a new numbered migration.

CREATE TABLE questions (
    id        INTEGER PRIMARY KEY,
    asked_at  TEXT NOT NULL,                   -- ISO 8601, UTC
    origin    TEXT NOT NULL DEFAULT 'cli',     -- where it was asked: 'cli', 'discord', ...
    question  TEXT NOT NULL,
    query     TEXT NOT NULL                    -- the search query it became
);
CREATE INDEX questions_by_time ON questions (asked_at);

-- The passages a question was given, numbered as the composer saw them. No foreign key to
-- chunks: a refresh replaces chunks, and the record must outlive them, so the provenance
-- is copied here.
CREATE TABLE question_passages (
    question_id  INTEGER NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
    n            INTEGER NOT NULL CHECK (n >= 1),
    chunk_id     INTEGER NOT NULL,
    score        REAL NOT NULL,
    source       TEXT NOT NULL,
    path         TEXT NOT NULL,
    heading      TEXT NOT NULL,
    symbol       TEXT NOT NULL DEFAULT '',
    url          TEXT NOT NULL,
    commit_sha   TEXT NOT NULL,
    PRIMARY KEY (question_id, n)
);

CREATE TABLE answers (
    id             INTEGER PRIMARY KEY,
    question_id    INTEGER NOT NULL UNIQUE REFERENCES questions (id) ON DELETE CASCADE,
    outcome        TEXT NOT NULL CHECK (outcome IN ('answered', 'declined', 'passages', 'error')),
    decline_kind   TEXT CHECK (decline_kind IN ('nothing_matched', 'composer_declined', 'ungrounded')),
    reason         TEXT,                       -- why declined, or what broke
    answer         TEXT,                       -- the answer shown, when answered
    draft          TEXT,                       -- a refused draft, kept for review, never shown
    stale          TEXT NOT NULL DEFAULT '[]', -- JSON list of sources past their interval
    provider       TEXT NOT NULL,
    model          TEXT,
    input_tokens   INTEGER,
    output_tokens  INTEGER,
    compose_ms     REAL,                       -- waiting for the model
    total_ms       REAL,                       -- the whole question, model included
    answered_at    TEXT NOT NULL,
    CHECK ((outcome = 'declined') = (decline_kind IS NOT NULL)),
    CHECK (outcome <> 'answered' OR answer IS NOT NULL)
);
CREATE INDEX answers_by_outcome ON answers (outcome);

-- An answer's citations refer to passages that question was actually given: the foreign key
-- makes a citation outside the supplied set impossible to record.
CREATE TABLE citations (
    answer_id    INTEGER NOT NULL REFERENCES answers (id) ON DELETE CASCADE,
    question_id  INTEGER NOT NULL,
    n            INTEGER NOT NULL,
    position     INTEGER NOT NULL,             -- order of citation in the answer
    PRIMARY KEY (answer_id, n),
    FOREIGN KEY (question_id, n) REFERENCES question_passages (question_id, n)
);

-- Feedback buttons: one vote per voter per answer, which the voter may change.
CREATE TABLE votes (
    answer_id  INTEGER NOT NULL REFERENCES answers (id) ON DELETE CASCADE,
    voter      TEXT NOT NULL,                  -- an opaque id, e.g. a Discord user id
    helpful    INTEGER NOT NULL CHECK (helpful IN (0, 1)),
    voted_at   TEXT NOT NULL,
    PRIMARY KEY (answer_id, voter)
);
