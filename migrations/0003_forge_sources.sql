-- Forge sources: what a failed release lookup said (shown by index status while code stays at
-- the last release), and the site config read at the branch head the last run saw, so an
-- unchanged source needs no file read to re-check its site.

ALTER TABLE sources ADD COLUMN release_error TEXT;
ALTER TABLE sources ADD COLUMN site_commit TEXT;      -- the commit the site config was read at
ALTER TABLE sources ADD COLUMN site_config TEXT;      -- its path, '' when there was none
ALTER TABLE sources ADD COLUMN site_config_url TEXT;  -- the site_url it named
