-- The last GitLab group listing that failed, and what GitLab or the network said, so that
-- index sources can say why GitLab's projects are missing (or are the ones from before) and
-- what to check, long after the build that failed has printed it. One row at most; a listing
-- that succeeds removes it. Never edit this file once released; add a new numbered migration.

CREATE TABLE listing_failure (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    grp        TEXT NOT NULL,   -- the group whose listing failed (gitlab.group at the time)
    error      TEXT NOT NULL,   -- what the failed listing said, as the build printed it
    failed_at  TEXT NOT NULL    -- when (ISO 8601, UTC)
);
