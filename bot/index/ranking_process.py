"""Full-text rankings, run in a process of their own because they need a second SQLite.

Python's ``sqlite3`` cannot register an FTS5 auxiliary function, so ``tuned_bm25``
(``bot.index.bm25``) runs on APSW, which carries its own copy of SQLite. Two copies of SQLite
must never open one file from one process: each keeps its own record of the process's locks,
so one copy's checkpoint can empty the write-ahead log under the other's reader, which then
reads two commits at once or crashes. The ranking connection therefore lives in a child
process (``python -m bot.index.ranking_process INDEX``), where locks between processes work as
SQLite means them to; the parent never imports APSW.

The child reads one request per line on its stdin, ``{"sql": ..., "params": ...}``, runs it to
its end (so no snapshot stays pinned) and writes one line back: ``{"rows": [...]}``, or
``{"error": ..., "code": ...}`` with SQLite's result code. Values travel as JSON: numbers, text
and NULL (a blob would end the child). It ends when its stdin closes, as it does when the
parent exits, so it outlives the process that started it by at most the statement in hand.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

CANNOT_IMPORT = 3  # the child's exit status when this interpreter lacks what it needs
BUSY_TIMEOUT_MS = 10_000  # as every other connection to the index waits
# Every answer is one line, which asyncio reads whole only up to a limit (64 KiB unless told):
# rankings answer with a few kilobytes, any statement within this.
ANSWER_LIMIT = 64 * 2**20
_SQLITE_ERROR = 1


class RankingFailed(Exception):
    """A ranking statement failed in the child; SQLite's result code is named as sqlite3 does."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.sqlite_errorcode = code


class RankingClosed(Exception):
    """A statement came after the store closed its ranking processes."""


class RankingProcessEnded(Exception):
    """A child ranking process stopped answering; what it said last, or its exit status."""


class RankingProcessCannotImport(RankingProcessEnded):
    """A child ranking process cannot import APSW or this package: a new one would fail too."""


class RankingProcesses:
    """The parent's side: a few child ranking processes, each started at its first statement.

    Each child answers one statement at a time. A search cancelled while its statement runs
    leaves the exchange to finish before that child is handed out again, so no statement ever
    reads another's answer. ``before_start`` runs before any child starts, to refuse a file
    that is no longer the one the store opened: a child opens the index by its path.
    """

    def __init__(self, path: Path, count: int, before_start: Callable[[], None]) -> None:
        self._children = [_Child(path, before_start) for _ in range(count)]
        self._idle: asyncio.Queue[_Child] = asyncio.Queue()
        for child in self._children:
            self._idle.put_nowait(child)
        self._closed = False

    async def fetchall(
        self, sql: str, params: tuple[Any, ...] | Mapping[str, Any]
    ) -> list[tuple[Any, ...]]:
        """Run one statement to its end in a child.

        Raises ``RankingFailed`` for a failed statement, ``RankingClosed`` once closed,
        ``RankingProcessEnded`` when the child stopped answering (the next statement starts a
        new one), ``OSError`` when none starts.
        """
        if self._closed:
            raise RankingClosed("the index was closed")
        child = await self._idle.get()
        exchange = asyncio.ensure_future(child.exchange(sql, params))
        # Handed out again only once answered; an exchange whose caller was cancelled reports
        # to nobody.
        exchange.add_done_callback(lambda done: self._idle.put_nowait(child))
        exchange.add_done_callback(lambda done: done.cancelled() or done.exception())
        return await asyncio.shield(exchange)

    async def start(self) -> None:
        """Start every child now, each with the index open, rather than at its first statement.

        A child started now keeps searching the file the store opened even if another file
        takes its path later, as the store's own connections do.
        """
        taken = [await self._idle.get() for _ in self._children]
        try:
            await asyncio.gather(*(child.start() for child in taken))
        finally:
            for child in taken:
                self._idle.put_nowait(child)

    async def close(self) -> None:
        """End every child once its statement in hand is answered; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        closed = [await self._idle.get() for _ in self._children]
        for child in closed:
            await child.close()
            self._idle.put_nowait(child)  # a search already waiting for one is told it closed


class _Child:
    """One child ranking process, started when first needed and again after it ends."""

    def __init__(self, path: Path, before_start: Callable[[], None]) -> None:
        self._path = path
        self._before_start = before_start
        self._process: asyncio.subprocess.Process | None = None
        self._closed = False

    async def exchange(
        self, sql: str, params: tuple[Any, ...] | Mapping[str, Any]
    ) -> list[tuple[Any, ...]]:
        process = await self._started()
        assert process.stdin is not None
        assert process.stdout is not None
        try:
            bound = params if isinstance(params, tuple) else dict(params)
            process.stdin.write(json.dumps({"sql": sql, "params": bound}).encode() + b"\n")
            await process.stdin.drain()
            line = await process.stdout.readline()
        except ConnectionError:
            line = b""
        except ValueError:  # longer than ANSWER_LIMIT: what is left of it would answer the next
            process.kill()
            await self._ended(process)
            raise RankingProcessEnded(f"it answered with more than {ANSWER_LIMIT} bytes") from None
        if not line:
            raise await self._ended(process)
        answer = json.loads(line)
        if "error" in answer:
            raise RankingFailed(answer["error"], answer["code"])
        return [tuple(row) for row in answer["rows"]]

    async def _started(self) -> asyncio.subprocess.Process:
        """The running child, started now if there is none: once it has the index open."""
        if self._closed:
            raise RankingClosed("the index was closed")
        if self._process is None:
            self._before_start()
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                __name__,
                str(self._path),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                limit=ANSWER_LIMIT,
                # A Ctrl-C at the terminal is the command's to act on: serve still finishes a
                # search while it stops, and a command's own exit closes this one's stdin.
                start_new_session=True,
                env={**os.environ, "PYTHONPATH": _importable(os.environ.get("PYTHONPATH"))},
            )
            assert process.stdout is not None
            line = await process.stdout.readline()
            if not line:
                raise await self._ended(process)
            opened = json.loads(line)
            if "error" in opened:
                await process.wait()
                raise RankingFailed(opened["error"], opened["code"])
            self._process = process
        return self._process

    async def start(self) -> None:
        await self._started()

    async def _ended(self, process: asyncio.subprocess.Process) -> RankingProcessEnded:
        """What a child that stopped answering said; the next statement starts a new one."""
        assert process.stderr is not None
        said = (await process.stderr.read()).decode(errors="replace").strip().splitlines()
        status = await process.wait()
        self._process = None
        why = said[-1] if said else f"exit status {status}"
        if status == CANNOT_IMPORT:  # also an interpreter that exits 3 saying nothing
            return RankingProcessCannotImport(why)
        return RankingProcessEnded(why)

    async def close(self) -> None:
        self._closed = True
        process, self._process = self._process, None
        if process is not None:
            assert process.stdin is not None
            process.stdin.close()
            await process.wait()


def _importable(pythonpath: str | None) -> str:
    """``PYTHONPATH`` with this package's own root first, wherever the command was run from."""
    root = str(Path(__file__).resolve().parents[2])
    return os.pathsep.join([root, pythonpath] if pythonpath else [root])


def _serve(path: str) -> int:
    """The child: open the index, say so, and answer ranking statements until stdin closes."""
    try:
        import apsw  # only here: the parent process never loads a second SQLite

        from bot.index.bm25 import FUNCTION, tuned_bm25
    except ImportError as exc:
        print(f"{sys.executable}: {exc}", file=sys.stderr)
        return CANNOT_IMPORT

    try:
        # Read-write without create, as the store's readers open it: a reader of a WAL file
        # needs its shared-memory index, and a missing file is an error, not a new index.
        conn = apsw.Connection(path, apsw.SQLITE_OPEN_READWRITE)
        conn.set_busy_timeout(BUSY_TIMEOUT_MS)
        conn.register_fts5_function(FUNCTION, tuned_bm25)
    except apsw.Error as exc:
        _answer(_error(exc))
        return 1
    _answer({"opened": True})
    while line := sys.stdin.buffer.readline():
        request = json.loads(line)
        try:
            _answer({"rows": list(conn.execute(request["sql"], request["params"]))})
        except apsw.Error as exc:
            _answer(_error(exc))
    conn.close()
    return 0


def _answer(answer: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()


def _error(exc: Exception) -> dict[str, Any]:
    code = getattr(exc, "result", _SQLITE_ERROR)
    return {"error": str(exc), "code": code if isinstance(code, int) else _SQLITE_ERROR}


if __name__ == "__main__":
    sys.exit(_serve(sys.argv[1]))
