import asyncio
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from bot.errors import StoreError
from bot.index.ranking_process import ANSWER_LIMIT
from bot.index.store import MIGRATIONS_DIR, RANKERS, Store, _failed
from tests.denied import may_not_read
from tests.migrating import open_as_another_migrates
from tests.processes import descendants
from tests.searchindex import damage


async def test_blank_database_is_migrated_into_wal_mode(tmp_path):
    async with await Store.open(tmp_path / "i.sqlite") as store:
        assert (await store.fetchone("PRAGMA journal_mode"))[0] == "wal"
        versions = [r[0] for r in await store.fetchall("SELECT version FROM schema_migrations")]
    assert versions == sorted(p.stem for p in MIGRATIONS_DIR.glob("*.sql"))


async def test_running_migrations_again_is_a_no_op(tmp_path):
    path = tmp_path / "i.sqlite"
    await (await Store.open(path)).close()
    async with await Store.open(path) as store:
        row = await store.fetchone("SELECT count(*) FROM schema_migrations")
        assert row[0] == len(list(MIGRATIONS_DIR.glob("*.sql")))


async def test_a_failing_migration_rolls_back_and_stays_pending(tmp_path):
    migrations = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS_DIR, migrations)
    bad = migrations / "9999_bad.sql"
    bad.write_text("CREATE TABLE half_done (x INTEGER);\nINSERT INTO no_such_table VALUES (1);\n")
    path = tmp_path / "i.sqlite"
    with pytest.raises(StoreError, match=r"9999_bad\.sql failed"):
        await Store.open(path, migrations)
    conn = sqlite3.connect(path)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    versions = {r[0] for r in conn.execute("SELECT version FROM schema_migrations")}
    conn.close()
    assert "half_done" not in tables and "9999_bad" not in versions
    assert "chunks" in tables  # the good migrations before it stay applied

    bad.write_text("CREATE TABLE half_done (x INTEGER);\n")
    async with await Store.open(path, migrations) as store:
        assert (await store.fetchone("SELECT count(*) FROM half_done"))[0] == 0


async def test_a_migration_meeting_a_full_disk_says_so_and_not_to_fix_the_migration(tmp_path):
    migrations = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS_DIR, migrations)
    path = tmp_path / "i.sqlite"
    await (await Store.open(path, migrations)).close()
    (migrations / "9999_big.sql").write_text(
        "PRAGMA max_page_count = 1;\n"  # the disk, as SQLite sees it
        "CREATE TABLE big (x BLOB);\nINSERT INTO big VALUES (zeroblob(100000));\n"
    )
    with pytest.raises(StoreError, match="the disk is full") as full:
        await Store.open(path, migrations)
    assert "Fix the migration" not in str(full.value)
    (migrations / "9999_big.sql").unlink()
    async with await Store.open(path, migrations) as store:  # nothing of it was kept
        assert await store.fetchone("SELECT 1 FROM sqlite_master WHERE name = 'big'") is None


async def test_an_index_path_that_is_a_directory_says_to_name_a_file(tmp_path):
    (tmp_path / "index").mkdir()
    with pytest.raises(StoreError, match=r"names a directory.*Set index\.path to a file") as error:
        await Store.open(tmp_path / "index")
    assert "damaged" not in str(error.value)
    assert list((tmp_path / "index").iterdir()) == []


@pytest.mark.parametrize("below", ["i.sqlite", "a/b/i.sqlite"])
async def test_an_index_path_below_a_file_names_that_file(tmp_path, below):
    (tmp_path / "notes").write_text("a file, not a directory\n")
    with pytest.raises(StoreError) as error:
        await Store.open(tmp_path / "notes" / below)
    assert str(error.value) == (
        f"A parent of index.path, {tmp_path / 'notes'}, is a file, not a directory, so the "
        f"index at {tmp_path / 'notes' / below} cannot be created. Set index.path to a path "
        "whose parents are directories, or move that file aside."
    )
    assert (tmp_path / "notes").read_text() == "a file, not a directory\n"


def _may_write_in(directory: Path) -> bool:
    """Whether this process writes into ``directory`` whatever its mode (as root does)."""
    try:
        (directory / "probe").touch()
    except PermissionError:
        return False
    (directory / "probe").unlink()
    return True


async def test_a_new_index_in_a_directory_it_may_not_write_says_to_make_it_writable(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        if _may_write_in(locked):
            pytest.skip("this process writes into read-only directories (root)")
        with pytest.raises(StoreError, match=r"cannot be written.*writable") as error:
            await Store.open(locked / "i.sqlite")
    finally:
        locked.chmod(0o755)
    assert "damaged" not in str(error.value)


async def test_a_damaged_file_says_how_to_recover(tmp_path):
    path = tmp_path / "i.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="index build"):
        await Store.open(path)


async def test_an_index_made_before_a_migration_changed_is_refused_and_kept(tmp_path):
    path = tmp_path / "i.sqlite"
    await (await Store.open(path)).close()
    conn = sqlite3.connect(path)
    conn.execute("ALTER TABLE chunks DROP COLUMN text_key")
    conn.commit()
    conn.close()
    before = path.read_bytes()

    with pytest.raises(StoreError, match=r"lacks chunks\.text_key\..*index build"):
        await (await Store.open(path)).close()
    assert path.read_bytes() == before  # refused, not repaired or replaced


async def test_a_failed_write_leaves_nothing_behind(tmp_path):
    async with await Store.open(tmp_path / "i.sqlite") as store:
        with pytest.raises(RuntimeError):
            async with store.write() as conn:
                await conn.execute(
                    "INSERT INTO sources (name, origin, location, verdict, clause) "
                    "VALUES ('a', 'local', '/a', 'admitted', 'local')"
                )
                raise RuntimeError("crash mid-transaction")
        assert (await store.fetchone("SELECT count(*) FROM sources"))[0] == 0


async def test_every_reader_sees_a_write_as_soon_as_it_commits(tmp_path):
    async with await Store.open(tmp_path / "i.sqlite") as store:
        async with store.write() as conn:
            await conn.execute(
                "INSERT INTO sources (name, origin, location, verdict, clause) "
                "VALUES ('a', 'local', '/a', 'admitted', 'local')"
            )
        # Hold every reader at once, so each connection of the pool answers.
        async with store.read() as one, store.read() as two, store.read() as three:
            for conn in (one, two, three):
                async with conn.execute("SELECT count(*) FROM sources") as cursor:
                    assert (await cursor.fetchone())[0] == 1


def _add_source(name: str):
    def work(conn: sqlite3.Connection) -> int:
        cursor = conn.execute(
            "INSERT INTO sources (name, origin, location, verdict, clause) "
            "VALUES (?, 'local', '/x', 'admitted', 'local')",
            (name,),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    return work


async def _insert_source(store: Store, name: str) -> None:
    """The same row as ``_add_source``, written statement by statement."""
    async with store.write() as conn:
        await conn.execute(
            "INSERT INTO sources (name, origin, location, verdict, clause) "
            "VALUES (?, 'local', '/x', 'admitted', 'local')",
            (name,),
        )


async def test_a_transaction_in_one_trip_commits_and_returns_what_the_work_returned(tmp_path):
    async with await Store.open(tmp_path / "i.sqlite") as store:
        rowid = await store.transact(_add_source("a"))
        row = await store.fetchone("SELECT rowid, name FROM sources")
        assert tuple(row) == (rowid, "a")


async def test_a_transaction_in_one_trip_that_fails_leaves_nothing_behind(tmp_path):
    def half_done(conn: sqlite3.Connection) -> None:
        _add_source("a")(conn)
        raise RuntimeError("crash mid-transaction")

    async with await Store.open(tmp_path / "i.sqlite") as store:
        with pytest.raises(RuntimeError, match="crash mid-transaction"):
            await store.transact(half_done)
        assert (await store.fetchone("SELECT count(*) FROM sources"))[0] == 0
        # The connection is usable again: the failed transaction was rolled back, not left open.
        await store.transact(_add_source("b"))
        assert [r[0] for r in await store.fetchall("SELECT name FROM sources")] == ["b"]


async def test_both_ways_of_writing_take_turns_without_busy_errors(tmp_path):
    async with await Store.open(tmp_path / "i.sqlite") as store:
        writes = [store.transact(_add_source(f"t{n}")) for n in range(20)]
        writes += [_insert_source(store, f"w{n}") for n in range(20)]
        await asyncio.gather(*writes)
        assert (await store.fetchone("SELECT count(*) FROM sources"))[0] == 40


async def test_the_work_runs_off_the_event_loop_and_not_after_close(tmp_path):
    store = await Store.open(tmp_path / "i.sqlite")
    try:
        loop_thread = threading.get_ident()
        assert await store.transact(lambda conn: threading.get_ident()) != loop_thread
    finally:
        await store.close()
    await store.close()  # safe twice
    with pytest.raises((sqlite3.ProgrammingError, RuntimeError)):
        await store.transact(_add_source("late"))


async def test_a_foreign_sqlite_file_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "app.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE users (name TEXT)")
    conn.execute("INSERT INTO users VALUES ('ada')")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match=r"not a phpbotscout index \(it holds users\).*untouched"):
        await Store.open(path)
    assert path.read_bytes() == before


async def test_an_index_from_a_newer_version_is_refused(tmp_path):
    path = tmp_path / "i.sqlite"
    await (await Store.open(path)).close()
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO schema_migrations VALUES ('0099_future', '2030-01-01T00:00:00+00:00')"
    )
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match=r"newer version.*0099_future"):
        await Store.open(path)


async def test_a_damaged_page_found_while_reading_says_how_to_recover(tmp_path):
    path = tmp_path / "i.sqlite"
    async with await Store.open(path) as store:
        async with store.write() as conn:
            await conn.executemany(
                "INSERT INTO sources (name, origin, location, verdict, clause) "
                "VALUES (?, 'local', '/a', 'admitted', 'local')",
                [(f"source-{i:05}-{'x' * 200}",) for i in range(200)],
            )
        [(root,)] = await store.fetchall(
            "SELECT rootpage FROM sqlite_master WHERE name = 'sources'"
        )
    with path.open("r+b") as f:  # the file opens; its table of sources is garbage
        f.seek((root - 1) * 4096)
        f.write(b"\xa5" * 4096)
    async with await Store.open(path) as store:
        with pytest.raises(StoreError, match="move it aside"):
            await store.fetchall("SELECT sum(length(location)) FROM sources")
        with pytest.raises(StoreError, match="move it aside"):
            async with store.write() as conn:
                await conn.execute("DELETE FROM sources")


async def test_a_full_disk_says_so_whichever_way_the_index_is_written(tmp_path):
    def fill(conn: sqlite3.Connection) -> None:
        [(pages,)] = conn.execute("PRAGMA page_count")
        conn.execute(f"PRAGMA max_page_count = {pages + 2}")  # the disk, as SQLite sees it
        conn.executemany(
            "INSERT INTO sources (name, origin, location, verdict, clause) "
            "VALUES (?, 'local', ?, 'admitted', 'local')",
            [(f"s{i}", "x" * 4000) for i in range(50)],
        )

    async with await Store.open(tmp_path / "i.sqlite") as store:
        with pytest.raises(StoreError, match="the disk is full"):
            await store.transact(fill)
        with pytest.raises(StoreError, match="the disk is full"):
            async with store.write() as conn:
                await conn.execute("PRAGMA max_page_count = 1")
                await conn.execute(
                    "INSERT INTO sources (name, origin, location, verdict, clause) "
                    "VALUES ('a', 'local', ?, 'admitted', 'local')",
                    ("x" * 40000,),
                )
        # Nothing from either was kept.
        assert (await store.fetchone("SELECT count(*) FROM sources"))[0] == 0


async def test_a_busy_writer_says_another_process_holds_it(tmp_path):
    path = tmp_path / "i.sqlite"
    await (await Store.open(path)).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    waiter = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        with pytest.raises(sqlite3.OperationalError) as busy:
            waiter.execute("BEGIN IMMEDIATE")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        waiter.close()
    # The store waits 10 s before it gives up; the message is what that wait ends in.
    assert "another process" in str(_failed(path, busy.value))
    integrity = sqlite3.IntegrityError("FOREIGN KEY constraint failed")
    assert _failed(path, integrity) is integrity  # the caller's to explain


async def test_every_sqlite_failure_reaches_callers_as_a_store_error(tmp_path):
    # Callers of the store (records, retrieval, the writer) have no error handling of their
    # own, so whatever SQLite raises, not only its database errors, arrives as a StoreError.
    async with await Store.open(tmp_path / "i.sqlite") as store:
        with pytest.raises(StoreError, match="could not be used"):
            await store.fetchall("SELECT ?", ())  # sqlite3.ProgrammingError
        with pytest.raises(StoreError, match="could not be used"):
            await store.transact(lambda conn: conn.execute("SELECT ?", ()))
        with pytest.raises(StoreError, match="could not be used"):
            async with store.write() as conn:
                await conn.execute("SELECT ?", ())


@pytest.mark.parametrize("how", ["deleted", "replaced"])
async def test_an_index_file_deleted_or_replaced_while_open_is_not_written_to(tmp_path, how):
    path = tmp_path / "i.sqlite"
    async with await Store.open(path) as store:
        await _insert_source(store, "before")
        for leftover in tmp_path.glob("i.sqlite*"):
            leftover.unlink()
        if how == "replaced":
            await (await Store.open(tmp_path / "other.sqlite")).close()
            (tmp_path / "other.sqlite").rename(path)
        for write in (
            lambda: _insert_source(store, "after"),
            lambda: store.transact(_add_source("x")),
        ):
            with pytest.raises(StoreError, match=f"{how}.*Restart phpbotscout"):
                await write()


async def test_a_new_index_migrated_by_another_command_meanwhile_is_opened(tmp_path):
    async with await open_as_another_migrates(tmp_path / "i.sqlite", tmp_path) as store:
        row = await store.fetchone("SELECT count(*) FROM schema_migrations")
        assert row[0] == len(list(MIGRATIONS_DIR.glob("*.sql")))


_RANKED = (
    "SELECT rowid, tuned_bm25(chunks_body_fts, 1.5, 0.5) FROM chunks_body_fts "
    "WHERE chunks_body_fts MATCH ? ORDER BY 2"
)
# A statement that keeps a ranking process busy for a while, answering with its argument.
_SLOW = (
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) "
    "SELECT max(i) FROM n"
)


def _ranking_processes(index: Path) -> list[int]:
    """The ranking processes this test started on ``index`` that are running."""
    return [
        p.pid
        for p in descendants(os.getpid())
        if f"-m bot.index.ranking_process {index}" in p.command
    ]


def _running(index: Path) -> int:
    """How many of the ranking processes on ``index`` are running a statement now."""
    running = 0
    for pid in _ranking_processes(index):
        try:
            stat = (Path("/proc") / str(pid) / "stat").read_text()
        except OSError:
            continue
        running += stat.rpartition(")")[2].split()[0] == "R"
    return running


async def test_a_damaged_full_text_index_met_while_ranking_says_how_to_recover(tmp_path):
    path = tmp_path / "i.sqlite"
    async with await Store.open(path) as store:
        damage(path, "chunks_body_fts_data")  # while open: opening it now would refuse it
        with pytest.raises(StoreError, match=r"cannot be opened \(database disk .*move it aside"):
            await store.rank(_RANKED, ("widget",))


async def test_a_failed_ranking_statement_reaches_callers_as_a_store_error(tmp_path):
    async with await Store.open(tmp_path / "i.sqlite") as store:
        with pytest.raises(StoreError, match=r"could not be used \(no such table: nowhere\)"):
            await store.rank("SELECT * FROM nowhere", ())


async def test_rankings_run_in_processes_that_end_with_the_store(tmp_path):
    path = tmp_path / "i.sqlite"
    store = await Store.open(path)
    assert _ranking_processes(path) == []  # started when first needed
    assert await store.rank(_RANKED, ("widget",)) == []
    assert len(_ranking_processes(path)) == 1
    await store.close()
    assert _ranking_processes(path) == []
    await store.close()  # safe twice
    with pytest.raises(StoreError, match="the index was closed") as closed:
        await store.rank(_RANKED, ("widget",))
    assert "damaged" not in str(closed.value)  # nothing is wrong with the file


def test_the_process_that_opens_the_store_never_loads_a_second_sqlite(tmp_path):
    # Two copies of SQLite on one file in one process do not see each other's locks.
    script = (
        "import asyncio, sys\n"
        "from pathlib import Path\n"
        "from bot.index.store import Store\n"
        "async def main():\n"
        f"    async with await Store.open(Path({str(tmp_path / 'i.sqlite')!r})) as store:\n"
        f"        assert await store.rank({_RANKED!r}, ('widget',)) == []\n"
        "asyncio.run(main())\n"
        "print('apsw' in sys.modules, 'sqlite3' in sys.modules)\n"
    )
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert (ran.returncode, ran.stdout) == (0, "False True\n"), ran.stderr


async def test_a_cancelled_ranking_lets_the_next_statement_read_its_own_answer(tmp_path):
    async with await Store.open(tmp_path / "i.sqlite") as store:
        # Both processes started and idle first: from then on, running is running a statement.
        await asyncio.gather(*(store.rank(_SLOW, (1,)) for _ in range(RANKERS)))
        slow = [asyncio.ensure_future(store.rank(_SLOW, (5_000_000,))) for _ in range(RANKERS)]
        async with asyncio.timeout(30):  # each process is running its statement
            while _running(tmp_path / "i.sqlite") < RANKERS:
                await asyncio.sleep(0.01)
        for search in slow:
            search.cancel()
        answers = await asyncio.gather(*(store.rank(_SLOW, (n,)) for n in range(1, 7)))
        assert answers == [[(n,)] for n in range(1, 7)]


async def test_a_ranking_process_that_dies_is_reported_and_started_again(tmp_path):
    path = tmp_path / "i.sqlite"
    async with await Store.open(path) as store:
        both = await asyncio.gather(*(store.rank(_SLOW, (n,)) for n in range(1, RANKERS + 1)))
        assert both == [[(n,)] for n in range(1, RANKERS + 1)]
        for pid in _ranking_processes(path):
            os.kill(pid, signal.SIGKILL)
        failed = await asyncio.gather(
            *(store.rank(_SLOW, (4,)) for _ in range(RANKERS)), return_exceptions=True
        )
        assert [str(f) for f in failed] == [
            f"The process that ranks passages from the index at {path} ended while searching "
            "(exit status -9). Run the command again; the next search starts a new one."
        ] * RANKERS
        assert await store.rank(_SLOW, (5,)) == [(5,)]


async def test_an_index_file_replaced_while_open_is_not_searched_in_its_place(tmp_path):
    path = tmp_path / "i.sqlite"
    async with await Store.open(path) as store:
        await (await Store.open(tmp_path / "other.sqlite")).close()
        (tmp_path / "other.sqlite").replace(path)
        with pytest.raises(StoreError, match=r"deleted or replaced .* can no longer be searched"):
            await store.rank(_RANKED, ("widget",))
        assert _ranking_processes(path) == []


async def test_ranking_helpers_started_early_keep_searching_the_file_the_store_opened(tmp_path):
    path = tmp_path / "i.sqlite"
    async with await Store.open(path) as store:
        await store.start_ranking()
        assert len(_ranking_processes(path)) == RANKERS
        path.unlink()
        assert await store.rank(_RANKED, ("widget",)) == []
        assert await store.rank(_SLOW, (3,)) == [(3,)]


async def test_a_ranking_helper_that_cannot_open_the_index_says_why(tmp_path):
    path = tmp_path / "i.sqlite"
    async with await Store.open(path) as store:
        with may_not_read(path):
            with pytest.raises(StoreError, match=r"cannot be written \(unable to open database"):
                await store.rank(_RANKED, ("widget",))
        assert _ranking_processes(path) == []  # it said why and ended
        assert await store.rank(_RANKED, ("widget",)) == []


async def test_an_answer_longer_than_asyncios_default_line_is_read_whole(tmp_path):
    # asyncio reads a line of at most 64 KiB unless told more; the rest would answer the next.
    async with await Store.open(tmp_path / "i.sqlite") as store:
        [(long,)] = await store.rank("SELECT printf('%.*c', 200000, 'x')", ())
        assert long == "x" * 200_000
        assert await store.rank(_SLOW, (3,)) == [(3,)]


async def test_an_answer_too_long_to_read_ends_its_process_and_not_the_next_answer(tmp_path):
    path = tmp_path / "i.sqlite"
    async with await Store.open(path) as store:
        with pytest.raises(StoreError, match=r"ended while searching \(it answered with more"):
            await store.rank("SELECT printf('%.*c', ?, 'x')", (ANSWER_LIMIT + 1,))
        assert await store.rank(_SLOW, (3,)) == [(3,)]


def test_a_ctrl_c_at_the_terminal_leaves_the_ranking_processes_to_the_command(tmp_path):
    # Ctrl-C reaches the terminal's whole foreground process group; serve then stops in order,
    # and a search it still finishes needs its ranking process.
    script = (
        "import asyncio, signal\n"
        "from pathlib import Path\n"
        "from bot.index.store import Store\n"
        "async def main():\n"
        f"    async with await Store.open(Path({str(tmp_path / 'i.sqlite')!r})) as store:\n"
        "        def every(n):  # a statement for each ranking process\n"
        f"            ranks = [store.rank({_SLOW!r}, (n,)) for _ in range({RANKERS})]\n"
        "            return asyncio.gather(*ranks)\n"
        "        await every(1)\n"
        "        interrupted = asyncio.Event()\n"
        "        asyncio.get_running_loop().add_signal_handler(signal.SIGINT, interrupted.set)\n"
        "        print('ready', flush=True)\n"
        "        await interrupted.wait()\n"
        "        print(*await every(2), flush=True)\n"
        "asyncio.run(main())\n"
    )
    command = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a terminal's foreground process group, of its own
    )
    assert command.stdout is not None
    assert command.stdout.readline() == "ready\n"
    os.killpg(command.pid, signal.SIGINT)  # what Ctrl-C at the terminal sends
    out, err = command.communicate(timeout=60)
    assert (command.returncode, out) == (0, " ".join(["[(2,)]"] * RANKERS) + "\n"), err


async def test_a_ranking_process_that_cannot_import_apsw_says_to_install_it(tmp_path, monkeypatch):
    # The parent never imports APSW, so an install that lacks it is first met here.
    lacking = tmp_path / "lacking"
    lacking.mkdir()
    (lacking / "apsw.py").write_text("raise ModuleNotFoundError(\"No module named 'apsw'\")\n")
    monkeypatch.setenv("PYTHONPATH", str(lacking))
    async with await Store.open(tmp_path / "i.sqlite") as store:
        for _ in range(2):  # not worth running again as it is: the next one cannot either
            with pytest.raises(
                StoreError,
                match=r"cannot be searched: .*: No module named 'apsw'\)\. "
                r"Install phpbotscout's dependencies with '\.venv/bin/pip install -e \.'",
            ):
                await store.rank(_RANKED, ("widget",))


async def test_closing_lets_every_search_in_flight_or_waiting_finish_first(tmp_path):
    path = tmp_path / "i.sqlite"
    store = await Store.open(path)
    await asyncio.gather(*(store.rank(_SLOW, (1,)) for _ in range(RANKERS)))
    counts = [3_000_000 + n for n in range(RANKERS + 1)]
    searches = [asyncio.ensure_future(store.rank(_SLOW, (n,))) for n in counts]
    async with asyncio.timeout(30):  # each process is running its statement, one search waits
        while _running(path) < RANKERS:
            await asyncio.sleep(0.01)
    await store.close()
    assert [await search for search in searches] == [[(n,)] for n in counts]
    assert _ranking_processes(path) == []
