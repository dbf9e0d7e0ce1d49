-- A question turned away because too many were waiting for the model is recorded with an
-- outcome of its own, 'busy': the model was never asked, so it is neither a failure of the
-- model ('error') nor a documentation gap.
--
-- SQLite cannot change a CHECK constraint in place, so the answers table is rebuilt. Foreign
-- keys are on while migrating, and dropping the old table would delete the citations and
-- votes that point at it, so those two are rebuilt alongside, pointing at the new table
-- before the old one goes; renaming it then carries their references along.

CREATE TABLE answers_new (
    id             INTEGER PRIMARY KEY,
    question_id    INTEGER NOT NULL UNIQUE REFERENCES questions (id) ON DELETE CASCADE,
    outcome        TEXT NOT NULL
                   CHECK (outcome IN ('answered', 'declined', 'passages', 'error', 'busy')),
    decline_kind   TEXT CHECK (decline_kind IN ('nothing_matched', 'composer_declined', 'ungrounded')),
    reason         TEXT,                       -- why declined, what broke, or why it was not asked
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
INSERT INTO answers_new (id, question_id, outcome, decline_kind, reason, answer, draft, stale,
    provider, model, input_tokens, output_tokens, compose_ms, total_ms, answered_at)
SELECT id, question_id, outcome, decline_kind, reason, answer, draft, stale,
    provider, model, input_tokens, output_tokens, compose_ms, total_ms, answered_at
FROM answers;

CREATE TABLE citations_new (
    answer_id    INTEGER NOT NULL REFERENCES answers_new (id) ON DELETE CASCADE,
    question_id  INTEGER NOT NULL,
    n            INTEGER NOT NULL,
    position     INTEGER NOT NULL,             -- order of citation in the answer
    PRIMARY KEY (answer_id, n),
    FOREIGN KEY (question_id, n) REFERENCES question_passages (question_id, n)
);
INSERT INTO citations_new (answer_id, question_id, n, position)
SELECT answer_id, question_id, n, position FROM citations;

CREATE TABLE votes_new (
    answer_id  INTEGER NOT NULL REFERENCES answers_new (id) ON DELETE CASCADE,
    voter      TEXT NOT NULL,                  -- an opaque id, e.g. a Discord user id
    helpful    INTEGER NOT NULL CHECK (helpful IN (0, 1)),
    voted_at   TEXT NOT NULL,
    PRIMARY KEY (answer_id, voter)
);
INSERT INTO votes_new (answer_id, voter, helpful, voted_at)
SELECT answer_id, voter, helpful, voted_at FROM votes;

DROP TABLE citations;
DROP TABLE votes;
DROP TABLE answers;
ALTER TABLE answers_new RENAME TO answers;
ALTER TABLE citations_new RENAME TO citations;
ALTER TABLE votes_new RENAME TO votes;
CREATE INDEX answers_by_outcome ON answers (outcome);
