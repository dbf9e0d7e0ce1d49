"""Steps shared by every feature: repositories on disk, a configuration, running the CLI."""

from __future__ import annotations

import asyncio
import codecs
import json
import os
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from bot import config as config_module
from bot import render
from bot.cli import main
from bot.engine import Engine
from bot.outcomes import QuietProgress
from tests.denied import deny_reading
from tests.gitrepo import commit, corrupt_loose_object, git, loose_object, make_repo
from tests.pipes import run_cli, run_with_reader_gone


@dataclass
class World:
    """What a scenario has built and what the last command printed."""

    root: Path
    estate: Path
    config: dict[str, Any] = field(default_factory=dict)
    code: int | None = None
    stdout: str = ""
    stderr: str = ""
    kept: bytes = b""  # a file's content, to show later that it was left alone

    def json(self) -> Any:
        return json.loads(self.stdout)


@pytest.fixture
def world(tmp_path: Path, home: Path) -> World:
    estate = tmp_path / "estate"
    estate.mkdir()
    return World(root=tmp_path, estate=estate)


def _commit_file(world: World, repo: str, path: str, content: str | bytes) -> None:
    target = world.estate / repo
    if (target / ".git").exists():
        commit(target, {path: content})
    else:
        make_repo(target, {path: content})


@given(parsers.parse('a git repository "{repo}" holding "{path}":'))
def repository_holding(world: World, repo: str, path: str, docstring: str) -> None:
    _commit_file(world, repo, path, docstring + "\n")


@given(parsers.parse('a git repository "{repo}" holding "{path}" saved with a byte-order mark:'))
def repository_holding_with_bom(world: World, repo: str, path: str, docstring: str) -> None:
    # Some editors (Notepad, Visual Studio) start every UTF-8 file they save with one.
    _commit_file(world, repo, path, codecs.BOM_UTF8 + (docstring + "\n").encode())


@given(parsers.parse('a git repository "{repo}" holding "{path}" saved in Latin-1:'))
def repository_holding_in_latin1(world: World, repo: str, path: str, docstring: str) -> None:
    # An older editor's encoding, with no declaration: Python still reads it where the bytes
    # that are not UTF-8 stand in a comment.
    _commit_file(world, repo, path, (docstring + "\n").encode("latin-1"))


@given(parsers.parse('a git repository "{repo}" holding "{path}" with Windows line endings:'))
def repository_holding_with_crlf(world: World, repo: str, path: str, docstring: str) -> None:
    _commit_file(world, repo, path, (docstring + "\n").replace("\n", "\r\n").encode())


@given(parsers.parse('"{name}" loses the object of its last commit'))
def commit_object_lost(world: World, name: str) -> None:
    head = git(world.estate / name, "rev-parse", "HEAD")
    (world.estate / name / ".git" / "objects" / head[:2] / head[2:]).unlink()


@given(parsers.parse('the object of the last commit of "{name}" may not be read by this user'))
def commit_object_denied(world: World, name: str, request: pytest.FixtureRequest) -> None:
    head = git(world.estate / name, "rev-parse", "HEAD")
    deny_reading(loose_object(world.estate / name, head), request)


@given(parsers.parse('"{name}" belongs to another user than the one phpbotscout runs as'))
def owned_by_another(world: World, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if os.geteuid() != 0:
        pytest.skip("only root may give a repository to another user")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)  # no safe.directory of this machine's
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    repo = world.estate / name
    for path in (repo, *repo.rglob("*")):
        os.chown(path, 65534, 65534, follow_symlinks=False)


@given(parsers.parse('the object of the last commit of "{name}" is corrupt on disk'))
def commit_object_corrupt(world: World, name: str) -> None:
    corrupt_loose_object(world.estate / name, git(world.estate / name, "rev-parse", "HEAD"))


@given("a configuration indexing those repositories")
def configuration(world: World) -> None:
    (world.root / "phpbotscout.toml").write_text(
        f'[sources]\nlocal = ["{world.estate}"]\n\n[index]\npath = "index.sqlite"\n'
    )


@given(parsers.parse('the configuration excludes "{name}"'))
def configuration_excludes(world: World, name: str) -> None:
    path = world.root / "phpbotscout.toml"
    text = path.read_text()
    if "exclude = [" in text:  # a further exclusion joins the list
        text = text.replace("exclude = [", f'exclude = ["{name}", ', 1)
    else:
        text = text.replace("[sources]\n", f'[sources]\nexclude = ["{name}"]\n')
    path.write_text(text)


@given(parsers.parse("the index has been built"))
def index_built(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["index", "build"]) == 0
    capsys.readouterr()


class ChangedAsItStarts(QuietProgress):
    """Runs ``change`` as the refresh of source ``name`` starts: once discovery has admitted it
    (and a GitLab source's fetch has brought its clone up to date), before anything is read."""

    def __init__(self, name: str, change: Callable[[], None]) -> None:
        self.name, self.change = name, change

    def source_started(self, name: str) -> None:
        if name == self.name:
            self.change()


def build_changing(world: World, name: str, change: Callable[[], None]) -> None:
    """Build as ``index build --json`` does, running ``change`` as the refresh of ``name`` starts.

    The build's output, from the engine the CLI runs: only through it can a repository or a
    clone change at that moment.
    """

    async def build() -> str:
        config = config_module.load(None, os.environ, world.root)
        async with await Engine.open(config) as engine:
            report = await engine.refresh(progress=ChangedAsItStarts(name, change))
        return render.json_text(render.refresh_json(report))

    world.stdout = asyncio.run(build())


def cli_arguments(command: str) -> list[str]:
    """What follows ``python -m bot.cli`` in a command a scenario writes in backticks."""
    argv = shlex.split(command.strip("`"))
    assert argv[:3] == ["python", "-m", "bot.cli"], command
    return argv[3:]


@when(parsers.parse("I run {command}"))
def run(world: World, command: str, capsys: pytest.CaptureFixture[str]) -> None:
    world.code = main(cli_arguments(command))
    captured = capsys.readouterr()
    world.stdout, world.stderr = captured.out, captured.err


@when(parsers.parse("I run {command} as a process of its own"))
def run_process(world: World, command: str) -> None:
    done = run_cli(cli_arguments(command), cwd=world.root)
    world.code, world.stdout, world.stderr = done.returncode, done.stdout, done.stderr


@when(parsers.parse("I pipe {command} into a reader that has gone"))
def pipe_to_gone_reader(world: World, command: str) -> None:
    done = run_with_reader_gone(cli_arguments(command), cwd=world.root)
    world.code, world.stdout, world.stderr = done.returncode, "", done.stderr


@then("nothing is said on standard error")
def stderr_empty(world: World) -> None:
    assert world.stderr == "", world.stderr


@then(parsers.parse('the log says "{text}"'))
def log_says(caplog: pytest.LogCaptureFixture, text: str) -> None:
    assert text in caplog.text, caplog.text


@then(parsers.parse('the log does not say "{text}"'))
def log_does_not_say(caplog: pytest.LogCaptureFixture, text: str) -> None:
    assert text not in caplog.text, caplog.text


@then(parsers.parse("the exit code is {code:d}"))
def exit_code(world: World, code: int) -> None:
    assert world.code == code, (world.stdout, world.stderr)


@then(parsers.parse('the output says "{text}"'))
def output_says(world: World, text: str) -> None:
    # The console wraps long lines wherever it likes, so words are compared, not line breaks.
    assert " ".join(text.split()) in " ".join(world.stdout.split()), world.stdout


@then(parsers.parse('the output does not say "{text}"'))
def output_does_not_say(world: World, text: str) -> None:
    assert " ".join(text.split()) not in " ".join(world.stdout.split()), world.stdout


@then("the error is one line")
def error_is_one_line(world: World) -> None:
    assert len(world.stderr.splitlines()) == 1, world.stderr


@then(parsers.parse('the error says "{text}"'))
def error_says(world: World, text: str) -> None:
    assert text in world.stderr, world.stderr


@then(parsers.parse('the error does not say "{text}"'))
def error_does_not_say(world: World, text: str) -> None:
    assert text not in world.stderr, world.stderr


@then(parsers.parse('the JSON error is of kind "{kind}" and says "{text}"'))
def json_error(world: World, kind: str, text: str) -> None:
    error = world.json()["error"]
    assert error["kind"] == kind and text in error["message"], error


# What starts a line of its own under a table: a source's problem, a failed listing, totals.
_BELOW_TABLE = re.compile(
    r"^(?=(?:unresolved \([^)]*\)|last error|release lookup|listing failed): |\d+ sources, )",
    re.M,
)


@then(parsers.parse('below the table, the {kind} of "{name}" says "{text}"'))
def said_below_table(world: World, kind: str, name: str, text: str) -> None:
    below = world.stdout[world.stdout.rindex("┘") + 1 :]
    # Each problem is read on its own, up to the next line, lest a sentence of another
    # source's pass for this one's. The console wraps a long one wherever it likes, so its
    # words are compared, not its line breaks; a name may go on: "gadgets (missing at ...)",
    # but "gadget" is not "gadgets".
    said = [" ".join(part.split()) for part in _BELOW_TABLE.split(below)]
    about = re.compile(
        rf"{re.escape(kind)}: {re.escape(name)}(?: \((?:missing|duplicate) at [^)]*\))?: "
    )
    assert any(about.match(s) and text in s for s in said), world.stdout


@then(parsers.parse('passage {rank:d} is "{heading}" from "{path}"'))
def passage_is(world: World, rank: int, heading: str, path: str) -> None:
    result = world.json()["results"][rank - 1]
    assert (result["heading"], result["path"]) == (heading, path)


@then(parsers.parse('no passage contains "{text}"'))
def no_passage_contains(world: World, text: str) -> None:
    assert all(text not in r["text"] for r in world.json()["results"])


@then(parsers.parse('source "{name}" was "{status}"'))
def source_status(world: World, name: str, status: str) -> None:
    outcomes = {s["source"]: s["status"] for s in world.json()["sources"]}
    assert outcomes[name] == status


@then(parsers.parse('source "{name}" is "{verdict}" by clause "{clause}"'))
def source_verdict(world: World, name: str, verdict: str, clause: str) -> None:
    """Read from ``index sources --json``: the verdict, its clause, and a sentence saying why."""
    rows = {row["source"]: row for row in world.json()}
    assert (rows[name]["verdict"], rows[name]["clause"]) == (verdict, clause), rows[name]
    assert rows[name]["detail"]


@then(parsers.parse('no source "{name}" is listed'))
def source_not_listed(world: World, name: str) -> None:
    """Read from ``index sources --json``, which lists others: not an empty listing."""
    listed = {row["source"] for row in world.json()}
    assert listed and name not in listed, listed
