from pytest_bdd import given, parsers, scenarios

from features.conftest import World

scenarios("configuration.feature")


@given(parsers.parse('the configuration sets "{key}" to {value}'))
def configuration_sets(world: World, key: str, value: str) -> None:
    # The value is written as it stands in the feature: TOML, so inf and "6h" both work.
    table, _, leaf = key.rpartition(".")
    path = world.root / "phpbotscout.toml"
    text = path.read_text()
    if f"[{table}]\n" in text:
        text = text.replace(f"[{table}]\n", f"[{table}]\n{leaf} = {value}\n", 1)
    else:
        text += f"\n[{table}]\n{leaf} = {value}\n"
    path.write_text(text)


@given(parsers.parse('the environment variable "{name}" is "{value}"'))
def environment_variable(monkeypatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)


@given(parsers.parse('a file "{name}" holding:'))
def file_holding(world: World, name: str, docstring: str) -> None:
    (world.root / name).write_text(docstring + "\n")


@given(parsers.parse('a file "{name}" saved as Latin-1 holding "{text}"'))
def file_in_latin1(world: World, name: str, text: str) -> None:
    (world.root / name).write_bytes(text.encode("latin-1") + b"\n")
