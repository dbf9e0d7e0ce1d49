import asyncio
import os
import signal
import sqlite3
from contextlib import closing

from pytest_bdd import given, parsers, scenarios, then, when

from bot.index.store import MIGRATIONS_DIR
from features.conftest import World, cli_arguments
from tests.gitrepo import commit
from tests.midwrite import signal_mid_write
from tests.migrating import open_as_another_migrates
from tests.pipes import exited, start_cli
from tests.searchindex import damage, left_to_merge
from tests.starting import reading

scenarios("index_build.feature")


def _columns(world: World, table: str) -> set[str]:
    with closing(sqlite3.connect(world.root / "index.sqlite")) as conn:
        return {row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')}


@given(parsers.parse('the index file lacks the column "{column}" of "{table}"'))
def drop_column(world: World, column: str, table: str) -> None:
    with closing(sqlite3.connect(world.root / "index.sqlite")) as conn:
        conn.execute(f'ALTER TABLE "{table}" DROP COLUMN "{column}"')
        conn.commit()


@then(parsers.parse('the index file still lacks the column "{column}" of "{table}"'))
def still_lacks(world: World, column: str, table: str) -> None:
    assert column not in _columns(world, table)


@then("the search indexes have nothing left to merge")
def nothing_left_to_merge(world: World) -> None:
    assert not left_to_merge(world.root / "index.sqlite")


@given("a page of the index's word search is overwritten with garbage")
def damage_search_page(world: World) -> None:
    damage(world.root / "index.sqlite", "chunks_body_fts_data")


@given("the index path holds another program's SQLite database")
def foreign_database(world: World) -> None:
    with closing(sqlite3.connect(world.root / "index.sqlite")) as conn:
        conn.execute("CREATE TABLE users (name TEXT)")
        conn.execute("INSERT INTO users VALUES ('ada')")
        conn.commit()
    world.kept = (world.root / "index.sqlite").read_bytes()


@then("the other program's database is unchanged")
def foreign_unchanged(world: World) -> None:
    assert (world.root / "index.sqlite").read_bytes() == world.kept


@then(parsers.parse('"{name}" is not indexed: "{verdict}" by "{clause}"'))
def not_indexed(world: World, name: str, verdict: str, clause: str) -> None:
    left_out = {s["source"]: (s["verdict"], s["clause"]) for s in world.json()["not_indexed"]}
    assert left_out[name] == (verdict, clause)


@then(parsers.parse('the build refreshed only "{name}"'))
def refreshed_only(world: World, name: str) -> None:
    assert [s["source"] for s in world.json()["sources"]] == [name]


@given(parsers.parse('the configuration\'s index path is changed to "{path}"'))
def index_path_changed(world: World, path: str) -> None:
    config = world.root / "phpbotscout.toml"
    config.write_text(config.read_text().replace('path = "index.sqlite"', f'path = "{path}"'))


@then(parsers.parse('there is no file "{name}"'))
def no_file(world: World, name: str) -> None:
    assert not (world.root / name).exists()


@when(
    "two commands open a new index file at once, one migrating it while the other waits",
    target_fixture="waited",
)
def open_together(world: World) -> list[str]:
    async def waiter() -> list[str]:
        async with await open_as_another_migrates(world.root / "i.sqlite", world.root) as store:
            return [row[0] for row in await store.fetchall("SELECT version FROM schema_migrations")]

    return asyncio.run(waiter())


@then("the one that waited opens it with every migration applied once")
def every_migration_once(waited: list[str]) -> None:
    assert sorted(waited) == sorted(p.stem for p in MIGRATIONS_DIR.glob("*.sql"))


@given(parsers.parse('a directory "{name}"'))
def a_directory(world: World, name: str) -> None:
    (world.root / name).mkdir()


@given(parsers.parse('a file "{name}"'))
def a_file(world: World, name: str) -> None:
    (world.root / name).write_text("notes\n")


def _passages(world: World) -> set[tuple[str, str]]:
    with closing(sqlite3.connect(world.root / "index.sqlite")) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        return set(
            conn.execute(
                "SELECT d.path, c.body FROM chunks c JOIN documents d ON d.id = c.document_id"
            )
        )


@given(parsers.parse('"{repo}" has {count:d} pages more, committed'))
def many_pages(world: World, repo: str, count: int) -> None:
    world.kept = repr(sorted(_passages(world))).encode()  # what the last build wrote
    pages: dict[str, str | bytes | None] = {
        f"docs/page{i:03}.md": f"# Page {i}\n\n"
        + "".join(f"## Part {j}\n\nSprocket {i} part {j}.\n\n" for j in range(6))
        for i in range(count)
    }
    commit(world.estate / repo, pages)


@when(parsers.parse("I start {command} and send it SIGTERM while it writes"))
def terminate_mid_write(world: World, command: str) -> None:
    build = start_cli(cli_arguments(command), cwd=world.root)
    stopped = signal_mid_write(build, world.root / "index.sqlite", signal.SIGTERM)
    world.code, world.stderr = exited(build, "stop on SIGTERM")
    assert stopped, "the build finished before it could be stopped mid-write"


@when(parsers.parse("I start {command} and send it SIGTERM while it reads its configuration"))
def terminate_while_configuring(world: World, command: str) -> None:
    config = world.root / "phpbotscout.toml"
    text = config.read_bytes()
    config.unlink()
    os.mkfifo(config)  # read to its end only once the signal is sent
    argv = ["--config", config.name, *cli_arguments(command)]
    process = start_cli(argv, cwd=world.root)
    with reading(config, process) as pipe:
        os.write(pipe, text)
        os.kill(process.pid, signal.SIGTERM)
    world.code, world.stderr = exited(process, "stop on SIGTERM")


@then("the index holds what the last build wrote, and nothing more")
def last_build_kept(world: World) -> None:
    assert repr(sorted(_passages(world))).encode() == world.kept
