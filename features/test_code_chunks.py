from pytest_bdd import parsers, scenarios, then

from features.conftest import World

scenarios("code_chunks.feature")


def _passage(world: World, rank: int) -> dict:
    results = world.json()["results"]
    assert len(results) >= rank, results
    return results[rank - 1]


@then(
    parsers.parse(
        'passage {rank:d} is symbol "{symbol}" of "{path}", kind "{kind}", '
        "lines {start:d} to {end:d}"
    )
)
def passage_is(world: World, rank: int, symbol: str, path: str, kind: str, start: int, end: int):
    passage = _passage(world, rank)
    repo, _, rel = path.partition("/")
    assert (passage["repo"], passage["path"]) == (repo, rel), passage
    assert (passage["symbol"], passage["kind"]) == (symbol, kind), passage
    assert (passage["start_line"], passage["end_line"]) == (start, end), passage
    assert passage["heading"] == symbol


@then(parsers.parse("passage {rank:d}'s text is:"))
def passage_text(world: World, rank: int, docstring: str):
    assert _passage(world, rank)["text"] == docstring


@then(parsers.parse('passage {rank:d} is cited at "{url}"'))
def passage_url(world: World, rank: int, url: str):
    assert _passage(world, rank)["url"] == url


@then("there are no passages")
def no_passages(world: World):
    assert world.json()["results"] == []
