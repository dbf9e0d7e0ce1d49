"""Looking inside an index file's full-text indexes, and damaging a table as a disk fault would."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

_TABLES = ("chunks_head_fts", "chunks_body_fts", "pages_fts")


def left_to_merge(index: Path) -> bool:
    """Whether FTS5's ``optimize`` would still change any full-text index (it is run)."""
    with closing(sqlite3.connect(index)) as db:

        def pages() -> list[tuple[int, bytes]]:
            return [row for t in _TABLES for row in db.execute(f"SELECT id, block FROM {t}_data")]

        before = pages()
        for table in _TABLES:
            db.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")
        db.commit()
        return sorted(pages()) != sorted(before)


def damage(index: Path, table: str) -> None:
    """Overwrite the first page of ``table`` with garbage, as a disk fault or a torn copy would.

    The write-ahead log is emptied into the file first, so no copy of the page outlives the
    damage there, and every connection already open on the index (a running bot's) reads the
    page afresh from the file, as it would after a write.
    """
    with closing(sqlite3.connect(index, isolation_level=None)) as db:
        [(busy, _, _)] = db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert busy == 0, "a connection was still reading or writing the index"
        [(root,)] = db.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,))
        [(page_size,)] = db.execute("PRAGMA page_size")
    with index.open("r+b") as f:
        f.seek((root - 1) * page_size)
        f.write(b"\xa5" * page_size)
