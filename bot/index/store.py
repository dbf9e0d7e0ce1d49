"""The one SQLite file: opening it, migrating it, and the single writer.

WAL mode lets readers keep answering from the last committed index while a refresh writes.
Reads go through a small pool of connections, and full-text rankings through two helper
processes (``bot.index.ranking_process``), so concurrent questions (and the two halves of one
search) run side by side. Writes take one lock and one explicit transaction each: a crash
or an error part-way leaves the previous index exactly as it was. ``Store.write()`` hands the
block an async connection, statement by statement (the refresh's way); ``Store.transact()``
runs a plain function over a second connection in one trip to its thread, which is how the
record of each answer is written: a statement-by-statement transaction costs one trip per
statement, and under load every trip waits its turn in the busy event loop while the write
lock is held, so the answers queued up behind each other's records.

Migrations are the numbered ``migrations/*.sql`` files, applied in order at start-up, each
in one transaction together with its bookkeeping row, so a failing migration rolls back and
stays pending, and running them again is a no-op.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from bot.errors import StoreError
from bot.index.ranking_process import (
    RankingClosed,
    RankingFailed,
    RankingProcessCannotImport,
    RankingProcessEnded,
    RankingProcesses,
)

log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"
READERS = 3  # concurrent reads; each connection is one thread while it works
RANKERS = 2  # concurrent full-text rankings, each a process: both halves of a search at once
T = TypeVar("T")


def now() -> str:
    """The current time as stored: ISO 8601 in UTC, to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def split_statements(script: str) -> list[str]:
    """Split a SQL script into statements, keeping trigger bodies whole.

    ``executescript`` would commit the open transaction first, which is exactly what a
    migration must not do, so statements run one by one inside the migration's transaction.
    """
    statements: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statement = pending.strip()
            if _has_sql(statement):
                statements.append(statement)
            pending = ""
    if _has_sql(pending):
        statements.append(pending.strip())
    return statements


def _has_sql(text: str) -> bool:
    return any(line.strip() and not line.strip().startswith("--") for line in text.splitlines())


class Store:
    """An open index database: its reading and writing connections, and its ranking helpers."""

    def __init__(
        self,
        path: Path,
        readers: list[aiosqlite.Connection],
        writer: aiosqlite.Connection,
        transactor: _Transactor,
    ):
        self.path = path
        self._file = _identity(path)
        self._readers = readers
        self._idle: asyncio.Queue[aiosqlite.Connection] = asyncio.Queue()
        for reader in readers:
            self._idle.put_nowait(reader)
        self._writer = writer
        self._transactor = transactor
        searchable = functools.partial(self._check_same_file, "it can no longer be searched")
        self._ranking = RankingProcesses(path, RANKERS, searchable)
        self._write_lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: Path, migrations_dir: Path = MIGRATIONS_DIR) -> Store:
        """Open (creating if needed) and migrate the database at ``path``."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            if (blocker := _file_among_parents(path)) is not None:
                # mkdir says only "File exists" or "Not a directory", naming neither file.
                raise StoreError(
                    f"A parent of index.path, {blocker}, is a file, not a directory, so the "
                    f"index at {path} cannot be created. Set index.path to a path whose "
                    "parents are directories, or move that file aside."
                ) from None
            raise StoreError(
                f"Cannot create the directory for the index at {path}: {exc}. "
                "Set index.path to a writable location."
            ) from None
        writer = await _connect(path)
        readers: list[aiosqlite.Connection] = []
        transactor: _Transactor | None = None
        try:
            await _refuse_foreign(writer, path)  # before WAL mode rewrites its header
            await _configure(writer, path, wal=True)
            await migrate(writer, migrations_dir, path)
            await verify_schema(writer, migrations_dir, path)
            for _ in range(READERS):
                readers.append(await _connect(path))
                await _configure(readers[-1], path, wal=False)
            transactor = await _Transactor.open(path)
        except BaseException as exc:
            for conn in [writer, *readers]:
                await conn.close()
            if transactor is not None:
                await transactor.close()
            if isinstance(exc, sqlite3.DatabaseError):  # damage found while checking the schema
                raise _failed(path, exc) from None
            raise
        return cls(path, readers, writer, transactor)

    async def close(self) -> None:
        """Close every connection; safe to call twice."""
        for conn in [*self._readers, self._writer]:
            await conn.close()
        await self._transactor.close()
        await self._ranking.close()

    @asynccontextmanager
    async def read(self) -> AsyncIterator[aiosqlite.Connection]:
        """Borrow a reading connection; it sees the last committed state of the index."""
        conn = await self._idle.get()
        try:
            yield conn
        finally:
            self._idle.put_nowait(conn)

    async def fetchall(self, sql: str, params: tuple[object, ...] = ()) -> list[sqlite3.Row]:
        """Run one query on a reading connection and return every row."""
        # One trip to the connection's thread: the statement runs to its end there, so it is
        # reset and pins no snapshot, and no cursor is left to close with a second trip.
        async with self.read() as conn:
            try:
                return list(await conn.execute_fetchall(sql, params))
            except sqlite3.Error as exc:
                raise _failed(self.path, exc) from None

    async def start_ranking(self) -> None:
        """Start the ranking helpers now, not at the first search (``serve`` does, at start).

        Started now, they keep searching this file if it is deleted or replaced meanwhile, as
        the reading connections keep reading it; started later, they would refuse to.
        """
        await self._ranked(self._ranking.start())

    async def rank(
        self, sql: str, params: tuple[object, ...] | Mapping[str, object]
    ) -> list[tuple[Any, ...]]:
        """Run one full-text ranking query, which may call ``tuned_bm25``; every row."""
        return await self._ranked(self._ranking.fetchall(sql, params))

    async def _ranked(self, work: Awaitable[T]) -> T:
        """``work``'s result, its failures said as the store's errors are."""
        try:
            return await work
        except RankingFailed as exc:
            raise _failed(self.path, exc) from None
        except RankingClosed as exc:
            raise StoreError(
                f"The index at {self.path} cannot be searched: {exc}, as it is when phpbotscout "
                "stops; the file is as it was. Run the command again."
            ) from None
        except RankingProcessCannotImport as exc:
            raise StoreError(
                f"The index at {self.path} cannot be searched: the process that ranks passages "
                f"cannot start ({exc}). Install phpbotscout's dependencies with "
                "'.venv/bin/pip install -e .' in the phpbotscout checkout, then run the command "
                "again."
            ) from None
        except RankingProcessEnded as exc:
            raise StoreError(
                f"The process that ranks passages from the index at {self.path} ended while "
                f"searching ({exc}). Run the command again; the next search starts a new one."
            ) from None
        except OSError as exc:
            raise StoreError(
                f"The index at {self.path} cannot be searched: the process that ranks passages "
                f"could not be started ({exc}). Free some memory or processes and run the "
                "command again."
            ) from None

    async def fetchone(self, sql: str, params: tuple[object, ...] = ()) -> sqlite3.Row | None:
        """Run one query on a reading connection and return its first row, if any."""
        rows = await self.fetchall(sql, params)
        return rows[0] if rows else None

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @asynccontextmanager
    async def write(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction: commits when the block ends, rolls back if it raises."""
        async with self._write_lock:
            self._check_same_file()
            try:
                await self._writer.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise _failed(self.path, exc) from None
            try:
                yield self._writer
            except BaseException as exc:
                await self._roll_back()
                if isinstance(exc, sqlite3.Error):
                    raise _failed(self.path, exc) from None
                raise
            try:
                await self._writer.execute("COMMIT")
            except sqlite3.Error as exc:
                await self._roll_back()
                raise _failed(self.path, exc) from None

    def _check_same_file(self, refused: str = "nothing more can be saved to it") -> None:
        """Refuse to go on once the file at ``path`` is no longer the one this store opened.

        SQLite writes on through its open handle when the file is deleted or replaced, so
        everything written afterwards would vanish at the next start, silently. A ranking
        process opens the index by its path, so one started then would rank another index's
        passages, or none. ``refused`` says which of the two is refused.
        """
        if _identity(self.path) != self._file:
            raise StoreError(
                f"The index file at {self.path} was deleted or replaced while phpbotscout "
                f"had it open, so {refused}. Restart phpbotscout: it then opens the file now "
                "at that path, or builds a new index there with 'python -m bot.cli index build'."
            )

    async def _roll_back(self) -> None:
        # SQLite ends some failed transactions itself (a full disk); rolling back again would
        # fail too, and hide why.
        if self._writer.in_transaction:
            await self._writer.execute("ROLLBACK")

    async def transact(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work`` in one write transaction, in one trip to the writing thread.

        ``work`` gets a plain ``sqlite3`` connection and runs on that thread, so it must only
        run statements and build its result: no awaiting, no I/O of its own. It commits when
        ``work`` returns and rolls back if it raises (the exception is raised here).
        """
        async with self._write_lock:
            self._check_same_file()
            try:
                return await self._transactor.run(work)
            except sqlite3.Error as exc:
                raise _failed(self.path, exc) from None


class _Transactor:
    """A plain ``sqlite3`` connection on a thread of its own, one transaction per call."""

    def __init__(self, path: Path, thread: ThreadPoolExecutor) -> None:
        self._path = path
        self._thread = thread
        self._conn: sqlite3.Connection | None = None

    @classmethod
    async def open(cls, path: Path) -> _Transactor:
        transactor = cls(path, ThreadPoolExecutor(1, thread_name_prefix="sqlite-transact"))
        try:
            await transactor._call(transactor._connect)
        except BaseException:
            transactor._thread.shutdown(wait=False)
            raise
        return transactor

    def _connect(self) -> None:
        # Made on the thread that uses it: sqlite3 connections stay on their own thread.
        try:
            conn = sqlite3.connect(self._path, isolation_level=None)
            for statement in _EVERY_CONNECTION:
                conn.execute(statement)
        except sqlite3.Error as exc:
            raise _unreadable(self._path, exc) from None
        self._conn = conn

    async def _call(self, fn: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._thread, fn)

    async def run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        return await self._call(lambda: self._in_transaction(work))

    def _in_transaction(self, work: Callable[[sqlite3.Connection], T]) -> T:
        conn = self._conn
        if conn is None:
            raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
        conn.execute("BEGIN IMMEDIATE")
        try:
            result = work(conn)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:  # SQLite ends some failed transactions itself (a full disk)
                conn.execute("ROLLBACK")
            raise
        return result

    async def close(self) -> None:
        if self._conn is not None:
            await self._call(self._close)
        self._thread.shutdown(wait=True)

    def _close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


# What every connection to the index is opened with, reader or writer.
_EVERY_CONNECTION = ("PRAGMA busy_timeout = 10000", "PRAGMA foreign_keys = ON")


async def _connect(path: Path) -> aiosqlite.Connection:
    # Tried plainly first: when aiosqlite fails to connect, its thread outlives the failure and
    # later reports to an event loop the command has closed, a traceback after the error.
    await asyncio.to_thread(_try_connect, path)
    try:
        conn = await aiosqlite.connect(path, isolation_level=None)
    except sqlite3.Error as exc:
        raise _failed(path, exc) from None
    conn.row_factory = sqlite3.Row
    return conn


def _file_among_parents(path: Path) -> Path | None:
    """The nearest existing parent of ``path`` when it is not a directory, else ``None``."""
    existing = next((p for p in path.parents if p.exists()), None)
    return None if existing is None or existing.is_dir() else existing


def _try_connect(path: Path) -> None:
    if path.is_dir():
        # SQLite reports this as a file it cannot open, which reads like damage.
        raise StoreError(
            f"index.path names a directory, {path}, not a file. Set index.path to a file "
            f"path, such as {path / 'phpbotscout.sqlite'}."
        )
    try:
        sqlite3.connect(path).close()
    except sqlite3.Error as exc:
        # Most often a new file in a directory it may not create files in: not damage.
        raise _failed(path, exc) from None


async def _configure(conn: aiosqlite.Connection, path: Path, *, wal: bool) -> None:
    pragmas = list(_EVERY_CONNECTION)
    if wal:
        pragmas += ["PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL"]
    try:
        for statement in [*pragmas, "SELECT count(*) FROM sqlite_master"]:
            # Every statement is run to completion and closed: a statement left open would
            # pin this connection to an old snapshot of the index.
            async with conn.execute(statement) as cursor:
                await cursor.fetchall()
    except sqlite3.Error as exc:
        await conn.close()
        if isinstance(exc, sqlite3.DatabaseError):
            raise _failed(path, exc) from None
        raise _unreadable(path, exc) from None


# What SQLite says about the file rather than the statement: it is busy, cannot be written,
# is full or damaged. Each is said the same way whichever statement met it (see ``_failed``).
_FILE_TROUBLE = frozenset(
    {
        sqlite3.SQLITE_BUSY,
        sqlite3.SQLITE_LOCKED,
        sqlite3.SQLITE_READONLY,
        sqlite3.SQLITE_PERM,
        sqlite3.SQLITE_CANTOPEN,
        sqlite3.SQLITE_FULL,
        sqlite3.SQLITE_CORRUPT,
        sqlite3.SQLITE_NOTADB,
    }
)


def _about_the_file(exc: sqlite3.Error | RankingFailed) -> bool:
    """Whether ``exc`` is trouble with the index file, not with the statement that met it."""
    return _primary_code(exc) in _FILE_TROUBLE


def _primary_code(exc: sqlite3.Error | RankingFailed) -> int:
    return getattr(exc, "sqlite_errorcode", sqlite3.SQLITE_ERROR) & 0xFF


def _failed(path: Path, exc: sqlite3.Error | RankingFailed) -> Exception:
    """What an error from SQLite means to whoever ran the command, and what they can do.

    Every read and write of the index comes through here, so its callers need no error
    handling of their own. A broken constraint is the caller's to explain (a vote on an
    answer that does not exist), so it passes through; everything else is about the file.
    """
    if isinstance(exc, sqlite3.IntegrityError):
        return exc
    code = _primary_code(exc)
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return StoreError(
            f"The index at {path} is busy: another process (an index build, or serve "
            "refreshing) has been writing it for longer than this one would wait. Run the "
            "command again when that has finished."
        )
    if code in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM, sqlite3.SQLITE_CANTOPEN):
        return StoreError(
            f"The index at {path} cannot be written ({exc}). Make the file and its directory "
            "writable for the user running phpbotscout, or set index.path to a place that is."
        )
    if code == sqlite3.SQLITE_FULL:
        return StoreError(
            f"The index at {path} cannot grow: the disk is full. Free some space and run the "
            "command again; the index is as it was before this command."
        )
    if code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return _unreadable(path, exc)
    # Damage that SQLite meets in a full-text index ("vtable constructor failed") reads like
    # any other failed statement, so this says what happened without calling it damage.
    return StoreError(
        f"The index at {path} could not be used ({exc}). If this happens again, the file may "
        "be damaged: move it aside and run 'python -m bot.cli index build' to build a new one."
    )


def _identity(path: Path) -> tuple[int, int] | None:
    """The device and inode of the file at ``path``; ``None`` once nothing is there."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _unreadable(path: Path, exc: Exception) -> StoreError:
    return StoreError(
        f"The index at {path} cannot be opened ({exc}). If it is damaged, move it aside "
        "and run 'python -m bot.cli index build' to build a new one."
    )


def _read_migrations(directory: Path) -> list[tuple[Path, str]]:
    return [(f, f.read_text(encoding="utf-8")) for f in sorted(directory.glob("*.sql"))]


async def migrate(conn: aiosqlite.Connection, directory: Path, path: Path) -> list[str]:
    """Apply pending migrations in order; return the versions applied now."""
    try:
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
        )
        async with conn.execute("SELECT version FROM schema_migrations") as cursor:
            applied = {row[0] for row in await cursor.fetchall()}
    except sqlite3.DatabaseError as exc:
        raise _failed(path, exc) from None
    files = await asyncio.to_thread(_read_migrations, directory)
    unknown = sorted(applied - {file.stem for file, _ in files})
    if unknown:
        raise StoreError(
            f"The index at {path} was made by a newer version of phpbotscout: it has "
            f"migration {', '.join(unknown)}, which this version does not know. Run the newer "
            "version, or move the index aside and run 'python -m bot.cli index build'."
        )
    done: list[str] = []
    for file, script in files:
        version = file.stem
        if version in applied:
            continue
        statements = split_statements(script)
        try:
            await conn.execute("BEGIN IMMEDIATE")
            if await _applied_meanwhile(conn, version):
                # Another process (two builds started together, or serve beside a build)
                # applied it while this one waited for the write lock: applying it again
                # would fail.
                await conn.execute("ROLLBACK")
                continue
            for statement in statements:
                await conn.execute(statement)
            await conn.execute(
                "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                (version, now()),
            )
        except sqlite3.Error as exc:
            if conn.in_transaction:  # a full disk has ended it already
                await conn.execute("ROLLBACK")
            if _about_the_file(exc):
                raise _failed(path, exc) from None
            raise StoreError(
                f"Migration {file.name} failed on {path}: {exc}. Nothing from it was applied; "
                "the index is as it was before. Fix the migration, then run the command again."
            ) from None
        await conn.execute("COMMIT")
        log.info("applied migration %s to %s", version, path)
        done.append(version)
    return done


async def _applied_meanwhile(conn: aiosqlite.Connection, version: str) -> bool:
    """Whether ``version`` is recorded as applied, read inside the migration's transaction."""
    async with conn.execute(
        "SELECT 1 FROM schema_migrations WHERE version = ?", (version,)
    ) as cursor:
        return await cursor.fetchone() is not None


async def _refuse_foreign(conn: aiosqlite.Connection, path: Path) -> None:
    """Refuse an SQLite file that holds tables but is not an index: it is somebody else's."""
    try:
        async with conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        ) as cursor:
            tables = [row[0] for row in await cursor.fetchall()]
    except sqlite3.DatabaseError as exc:
        raise _failed(path, exc) from None
    if tables and "schema_migrations" not in tables:
        shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
        raise StoreError(
            f"{path} is an SQLite database but not a phpbotscout index (it holds {shown}), "
            "so it was left untouched. Set index.path to a file of its own."
        )


async def verify_schema(conn: aiosqlite.Connection, directory: Path, path: Path) -> None:
    """Refuse an index whose tables lack columns a new index made by these migrations has.

    Migrations are recorded by name, so an index made before a migration was changed would
    pass as current and fail later, mid-write, with a bare SQLite error. Comparing it with a
    scratch database built from the same files catches that at opening, with what to do.
    """
    expected = await asyncio.to_thread(_reference_schema, directory)
    missing: list[str] = []
    for table, columns in expected.items():
        async with conn.execute(f'PRAGMA table_info("{table}")') as cursor:
            present = {row[1] for row in await cursor.fetchall()}
        if present:
            missing += [f"{table}.{column}" for column in columns if column not in present]
    if missing:
        raise StoreError(
            f"The index at {path} was made by a different version of phpbotscout: it lacks "
            f"{', '.join(missing)}. Move it aside (it keeps any recorded answers and gaps) and "
            "run 'python -m bot.cli index build' to build a new one."
        )


def _reference_schema(directory: Path) -> dict[str, tuple[str, ...]]:
    files = tuple(_read_migrations(directory))
    return _schema_of(files)


@functools.cache
def _schema_of(files: tuple[tuple[Path, str], ...]) -> dict[str, tuple[str, ...]]:
    scratch = sqlite3.connect(":memory:")
    try:
        for _, script in files:
            for statement in split_statements(script):
                scratch.execute(statement)
        tables = [
            row[0]
            for row in scratch.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        return {
            table: tuple(row[1] for row in scratch.execute(f'PRAGMA table_info("{table}")'))
            for table in tables
        }
    finally:
        scratch.close()
