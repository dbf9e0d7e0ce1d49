from pytest_bdd import given, parsers, scenarios, then

from features.conftest import World

scenarios("ask_retrieval.feature")


@then(parsers.parse('passage {rank:d} is "{heading}" from "{path}"'))
def passage_is(world: World, rank: int, heading: str, path: str) -> None:
    result = world.json()["results"][rank - 1]
    assert (result["heading"], result["path"]) == (heading, path)


@then(parsers.parse('passage {rank:d} cites "{url}"'))
def passage_cites(world: World, rank: int, url: str) -> None:
    assert world.json()["results"][rank - 1]["url"] == url


@then("there are no passages")
def no_passages(world: World) -> None:
    assert world.json()["results"] == []


@given("the index file is removed")
def index_removed(world: World) -> None:
    for suffix in ("", "-wal", "-shm"):
        (world.root / f"index.sqlite{suffix}").unlink(missing_ok=True)
