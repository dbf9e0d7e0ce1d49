from pytest_bdd import given, parsers, scenarios, then

from features.conftest import World
from tests.gitrepo import make_repo

scenarios("code_chunks.feature")


@given(
    parsers.parse(
        'a git repository "{repo}" holding "{path}", a class "{name}" of {count:d} fields, '
        "each with a docstring and a blank line after it"
    )
)
def repository_holding_a_long_class(world: World, repo: str, path: str, name: str, count: int):
    fields = "".join(f'    field_{i}: int\n    """Setting number {i}."""\n\n' for i in range(count))
    make_repo(world.estate / repo, {path: f'class {name}:\n    """Every setting."""\n\n{fields}'})


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


@then(parsers.parse('passage {rank:d}\'s heading path is "{path}"'))
def passage_heading_path(world: World, rank: int, path: str):
    assert " › ".join(_passage(world, rank)["heading_path"]) == path


@then(parsers.parse('passage {rank:d} is cited at "{url}"'))
def passage_url(world: World, rank: int, url: str):
    assert _passage(world, rank)["url"] == url


@then("there are no passages")
def no_passages(world: World):
    assert world.json()["results"] == []


@then("every passage's text is the lines it cites")
def passages_are_their_lines(world: World):
    for passage in world.json()["results"]:
        source = (world.estate / passage["repo"] / passage["path"]).read_text()
        lines = source.split("\n")[passage["start_line"] - 1 : passage["end_line"]]
        assert passage["text"] == "\n".join(lines), passage
