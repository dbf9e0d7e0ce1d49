"""The connections full-text rankings run on: APSW, so that BM25's parameters can be chosen.

Python's ``sqlite3`` cannot register an FTS5 auxiliary function; APSW can, and its SQLite reads
the same file. Ranking queries run here, on connections that only ever read and that have
``tuned_bm25`` (``bot.index.bm25``); everything else reads through the store's own pool.
Each statement is read to its end in one trip to its connection's thread, so no snapshot
stays pinned.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import apsw

from bot.index.bm25 import FUNCTION, tuned_bm25

BUSY_TIMEOUT_MS = 10_000  # as every other connection to the index waits


class _Reader:
    """One connection and the one thread it runs on.

    A search cancelled while its statement runs gives the connection back at once; the next
    statement then waits on the same thread, where APSW would refuse two at a time.
    """

    def __init__(self, conn: apsw.Connection) -> None:
        self.conn = conn
        self.thread = ThreadPoolExecutor(1, thread_name_prefix="sqlite-rank")


class RankingReaders:
    """A small pool of APSW connections to one index file, each able to rank with ``tuned_bm25``."""

    def __init__(self, readers: list[_Reader]) -> None:
        self._readers = readers
        self._closed = False
        self._idle: asyncio.Queue[_Reader] = asyncio.Queue()
        for reader in readers:
            self._idle.put_nowait(reader)

    @classmethod
    def open(cls, path: Path, count: int) -> RankingReaders:
        """Open ``count`` connections to the existing index at ``path`` (raises ``apsw.Error``)."""
        readers: list[_Reader] = []
        try:
            for _ in range(count):
                # Read-write without create, as the store's readers open it: a reader of a WAL
                # file needs its shared-memory index, and a missing file is an error here.
                readers.append(_Reader(apsw.Connection(str(path), apsw.SQLITE_OPEN_READWRITE)))
                readers[-1].conn.set_busy_timeout(BUSY_TIMEOUT_MS)
                readers[-1].conn.register_fts5_function(FUNCTION, tuned_bm25)
        except apsw.Error:
            for reader in readers:
                reader.conn.close()
                reader.thread.shutdown(wait=False)
            raise
        return cls(readers)

    async def fetchall(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """Run one query to its end and return every row (raises ``apsw.Error``)."""
        reader = await self._idle.get()
        try:
            return await asyncio.get_running_loop().run_in_executor(
                reader.thread, lambda: list(reader.conn.execute(sql, params))
            )
        finally:
            self._idle.put_nowait(reader)

    async def close(self) -> None:
        """Close every connection once its thread is done with it; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        loop = asyncio.get_running_loop()
        for reader in self._readers:
            await loop.run_in_executor(reader.thread, reader.conn.close)
            reader.thread.shutdown(wait=True)
