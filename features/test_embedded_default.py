import tomllib

from pytest_bdd import given, scenarios, then

from bot.config import project_root
from features.conftest import World

scenarios("embedded_default.feature")

DOCUMENTATION = {"doc", "readme", "changelog"}


@given("no configuration file")
def no_configuration(world: World) -> None:
    assert not (world.root / "phpbotscout.toml").exists()


@then("every passage comes from phpbotscout's documentation, not its code")
def documentation_only(world: World) -> None:
    results = world.json()["results"]
    assert results
    assert {r["repo"] for r in results} == {"phpbotscout"}
    assert {r["kind"] for r in results} <= DOCUMENTATION, [(r["kind"], r["path"]) for r in results]


@then("passage 1 cites phpbotscout's documentation site")
def cites_the_site(world: World) -> None:
    site = tomllib.loads((project_root() / "zensical.toml").read_text())["project"]["site_url"]
    first = world.json()["results"][0]
    assert first["kind"] == "doc" and first["url"].startswith(site), first
