from pytest_bdd import given, parsers, scenarios, then

from features.conftest import World
from tests.gitrepo import make_repo

scenarios("named_sources.feature")


@given(parsers.parse('a git repository "{repo}" with {count:d} pages about sprocket alignment'))
def pages_about_sprockets(world: World, repo: str, count: int) -> None:
    pages = {
        f"docs/topic{n}.md": (
            f"# Sprocket topic {n}\n\nSprockets turn.\n\n"
            f"## Sprocket alignment {n}\n\nAlign the sprocket teeth before use.\n"
        )
        for n in range(count)
    }
    make_repo(world.estate / repo, pages)


@then(parsers.parse('passages {first:d} to {last:d} come from "{repo}"'))
def passages_from(world: World, first: int, last: int, repo: str) -> None:
    results = world.json()["results"]
    assert [r["repo"] for r in results[first - 1 : last]] == [repo] * (last - first + 1)


@then(parsers.parse('passage {rank:d} comes from "{repo}"'))
def passage_from(world: World, rank: int, repo: str) -> None:
    assert world.json()["results"][rank - 1]["repo"] == repo
