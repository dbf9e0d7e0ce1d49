"""Looking inside an index file's full-text indexes, for tests of how they are kept."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

_TABLES = ("chunks_head_fts", "chunks_body_fts")


def left_to_merge(index: Path) -> bool:
    """Whether FTS5's ``optimize`` would still change either full-text index (it is run)."""
    with closing(sqlite3.connect(index)) as db:

        def pages() -> list[tuple[int, bytes]]:
            return [row for t in _TABLES for row in db.execute(f"SELECT id, block FROM {t}_data")]

        before = pages()
        for table in _TABLES:
            db.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")
        db.commit()
        return sorted(pages()) != sorted(before)
