import sqlite3
from contextlib import closing

from pytest_bdd import given, parsers, scenarios, then

from features.conftest import World
from tests.searchindex import left_to_merge

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
