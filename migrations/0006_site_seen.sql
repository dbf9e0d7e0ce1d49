-- Forge sources: the docs site last seen answering, so a run may trust that answer for
-- index.site_check_interval while the site's URL and the branch head stay the same.

ALTER TABLE sources ADD COLUMN site_seen_url TEXT;     -- the URL that answered
ALTER TABLE sources ADD COLUMN site_seen_commit TEXT;  -- the branch head at the time
ALTER TABLE sources ADD COLUMN site_seen_at TEXT;      -- when (ISO 8601, UTC)
