from pytest_bdd import parsers, scenarios, then

from features.conftest import World

scenarios("index_build.feature")


@then(parsers.parse('source "{name}" was "{status}"'))
def source_status(world: World, name: str, status: str) -> None:
    outcomes = {s["source"]: s["status"] for s in world.json()["sources"]}
    assert outcomes[name] == status
