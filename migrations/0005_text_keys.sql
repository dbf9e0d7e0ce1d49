-- A key of each chunk's text with whitespace normalised, so that selection can tell two
-- passages with the same text apart from the rest without reading either body. Filled in by
-- the writer; chunks written before this migration get theirs when their source is re-read.

ALTER TABLE chunks ADD COLUMN text_key TEXT NOT NULL DEFAULT '';
