import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from bot.config import project_root
from features.conftest import World
from tests.denied import deny_reading
from tests.gitrepo import git, write_files

scenarios("embedded_default.feature")

DOCUMENTATION = {"doc", "readme", "changelog"}


@given("no configuration file")
def no_configuration(world: World) -> None:
    assert not (world.root / "phpbotscout.toml").exists()


@given(parsers.parse('XDG_DATA_HOME is the relative path "{path}"'))
def relative_xdg_data_home(monkeypatch: pytest.MonkeyPatch, path: str) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", path)


@then(parsers.parse('nothing called "{name}" was made where the command ran'))
def nothing_made(world: World, name: str) -> None:
    assert Path.cwd() == world.root
    assert not (world.root / name).exists()


@then(parsers.parse('the index lives in "~/{directory}"'))
def index_lives_in(home: Path, directory: str) -> None:
    assert (home / directory / "default.sqlite").is_file()


@given("a copy of phpbotscout's files without its git history", target_fixture="copy")
def copy_without_git(world: World) -> Path:
    """The checkout's tracked files, as a downloaded archive holds them: no ``.git``."""
    root = project_root()
    tracked = [name for name in git(root, "ls-files", "-z").split("\0") if name]
    copy = world.root / "phpbotscout-copy"
    # A file deleted in the working tree but not yet in git is not copied.
    write_files(
        copy, {name: (root / name).read_bytes() for name in tracked if (root / name).is_file()}
    )
    assert not (copy / ".git").exists()
    return copy


def _run_in(world: World, copy: Path, *args: str) -> None:
    """Run the copy's own ``bot.cli`` (the copy is the corpus it indexes)."""
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", *args],
        cwd=copy,
        env=os.environ.copy(),  # the private HOME and data directory, outside the copy
        capture_output=True,
        text=True,
        timeout=120,
    )
    world.code, world.stdout, world.stderr = done.returncode, done.stdout, done.stderr


@when(parsers.parse('that copy is asked "{question}"'))
def copy_asked(world: World, copy: Path, question: str) -> None:
    _run_in(world, copy, "ask", question, "--retrieval-only", "--json")


@when(parsers.parse('the "{directory}" directory of that copy may not be read by this user'))
def copy_part_denied(copy: Path, directory: str, request: pytest.FixtureRequest) -> None:
    deny_reading(copy / directory, request)


@when("that copy builds its index again")
def copy_builds(world: World, copy: Path) -> None:
    _run_in(world, copy, "index", "build", "--json")


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


@then(parsers.parse('passage 1 comes from "{path}"'))
def first_passage_from(world: World, path: str) -> None:
    first = world.json()["results"][0]
    assert (first["repo"], first["path"]) == ("phpbotscout", path), first


@then("every passage was read from the copy's files, not from a commit")
def read_from_files(world: World) -> None:
    # A directory's files are identified by a digest of their names, sizes and times.
    assert all(r["commit"].startswith("worktree-") for r in world.json()["results"])
