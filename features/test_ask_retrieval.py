import re

import pytest
from pytest_bdd import given, parsers, scenarios, then

from features.conftest import World
from tests.gitrepo import make_repo

scenarios("ask_retrieval.feature")

TRICK_HEADING = "Tuning trick \x1b]0;pwned\x07"  # sets the terminal's title
TRICK_TEXT = "The trick makes \x1b[8mhidden\x1b[0m text.\x9b2J"  # concealed, then a C1 clear
# A heading and a repository name that a direction override would show partly reversed.
REVERSED_HEADING = "Reversing \u202etrick\u202c"
# A word joiner, and tag characters: text no reader sees, which a model would read.
HIDDEN_HEADING = "Hidden\u2060note \U000e0041\U000e0042"
REVERSED_NAME = "tricks\u2067\u202eexe.\u202c\u2069\x1b]0;pwned\x07"
# What a line break in a repository's name would make read as a log line of its own.
FORGED = "WARNING bot.refresh: forged"
# Control characters, and the marks and overrides that reorder the text after them.
CONTROL = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"
    r"\ufeff\ufff9-\ufffb\U000e0000-\U000e007f]"
)


@then(parsers.parse('passage {rank:d} cites "{url}"'))
def passage_cites(world: World, rank: int, url: str) -> None:
    assert world.json()["results"][rank - 1]["url"] == url


@then("there are no passages")
def no_passages(world: World) -> None:
    assert world.json()["results"] == []


@given("the library that ranks passages is not installed")
def apsw_missing(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    # Found before the installed one by the helper process, which the search starts: it raises
    # as an interpreter without APSW does when asked to import it.
    lacking = world.root / "lacking"
    lacking.mkdir()
    (lacking / "apsw.py").write_text("raise ModuleNotFoundError(\"No module named 'apsw'\")\n")
    monkeypatch.setenv("PYTHONPATH", str(lacking))


@given("the index file is removed")
def index_removed(world: World) -> None:
    for suffix in ("", "-wal", "-shm"):
        (world.root / f"index.sqlite{suffix}").unlink(missing_ok=True)


@given(
    parsers.parse('a git repository "{repo}" whose "{path}" retitles the terminal and hides text')
)
def tricky_repository(world: World, repo: str, path: str) -> None:
    make_repo(world.estate / repo, {path: f"# Tricks\n\n## {TRICK_HEADING}\n\n{TRICK_TEXT}\n"})


@given(parsers.parse('a git repository "{repo}" whose "{path}" has a heading reversed in part'))
def reversing_repository(world: World, repo: str, path: str) -> None:
    make_repo(world.estate / repo, {path: f"# Tricks\n\n## {REVERSED_HEADING}\n\n{TRICK_TEXT}\n"})


@given(parsers.parse('a git repository "{repo}" whose "{path}" has a heading carrying hidden text'))
def hiding_repository(world: World, repo: str, path: str) -> None:
    make_repo(world.estate / repo, {path: f"# Tricks\n\n## {HIDDEN_HEADING}\n\n{TRICK_TEXT}\n"})


@given("a git repository whose name reverses part of it and retitles the terminal")
def reversing_name(world: World) -> None:
    make_repo(world.estate / REVERSED_NAME, {"README.md": f"# Tricks\n\n{TRICK_TEXT}\n"})


@given(
    parsers.parse(
        'a git repository "{repo}" whose "{path}" has a section "{heading}" '
        "written as one long line"
    )
)
def long_line_section(world: World, repo: str, path: str, heading: str) -> None:
    # Prose that is not wrapped: one line of about 6,000 bytes, over the 4,000-byte ceiling.
    line = "Each glossary entry names a widget part and says what it does. " * 95
    make_repo(world.estate / repo, {path: f"# Glossary\n\n## {heading}\n{line}\n"})


@then(parsers.parse('every passage from "{path}" holds words under its heading'))
def passages_hold_words(world: World, path: str) -> None:
    texts = [r["text"] for r in world.json()["results"] if r["path"] == path]
    assert len(texts) > 1, texts  # the section was cut into parts
    for text in texts:
        under = [line for line in text.split("\n") if not line.startswith("#")]
        assert any(ch.isalnum() for line in under for ch in line), text


@given("a git repository whose name breaks the line to forge a log line")
def line_breaking_name(world: World) -> None:
    make_repo(world.estate / f"tricks\n{FORGED}", {"README.md": f"# Tricks\n\n{TRICK_TEXT}\n"})


@then("no log line is forged")
def no_forged_line(world: World) -> None:
    assert not any(line.startswith(FORGED) for line in world.stderr.splitlines()), world.stderr


@then("no control character reaches the terminal")
def no_control_character(world: World) -> None:
    # Standard error is the terminal too: errors and the log are written there.
    assert not CONTROL.search(world.stdout), repr(world.stdout)
    assert not CONTROL.search(world.stderr), repr(world.stderr)


@then(parsers.parse("passage {rank:d} holds the escape sequences as they were written"))
def passage_holds_escapes(world: World, rank: int) -> None:
    result = world.json()["results"][rank - 1]
    assert result["heading"] == TRICK_HEADING
    assert TRICK_TEXT in result["text"]
