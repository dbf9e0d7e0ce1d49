"""Every command, as a process whose reader has gone, as with ``| head -n1``."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import READER_GONE, main
from tests.gitrepo import make_repo
from tests.pipes import run_with_reader_gone

PAGE = "# Widgets\n\n## Tuning the frobnicator\n\nSet the frobnication depth to seven.\n"


@pytest.fixture
def config(home: Path, tmp_path: Path) -> Path:
    """A built index, its configuration, and a declined question for ``gaps``.

    ``home`` keeps the machine's configuration and keys out, here and in the process run.
    """
    root = tmp_path
    make_repo(root / "estate" / "widgets", {"docs/guide.md": PAGE})
    path = root / "phpbotscout.toml"
    path.write_text(f'[sources]\nlocal = ["{root / "estate"}"]\n[index]\npath = "index.sqlite"\n')
    questions = root / "questions.jsonl"
    questions.write_text(
        '{"id": "q1", "band": "unanswerable", "question": "who?", "expected": []}\n'
    )
    for argv in (["index", "build"], ["ask", "zyzzyva quux"]):
        assert main(["--config", str(path), *argv]) == 0
    return path


@pytest.mark.parametrize(
    "argv",
    [
        ["ask", "frobnication depth", "--retrieval-only"],
        ["ask", "frobnication depth", "--retrieval-only", "--json"],
        ["ask", "frobnication depth"],
        ["index", "status"],
        ["index", "sources", "--json"],
        ["index", "build"],
        ["gaps"],
        ["ask", "", "--json"],
    ],
    ids=" ".join,
)
def test_a_reader_that_has_gone_ends_the_command_quietly(config, argv):
    done = run_with_reader_gone(["--config", str(config), *argv])
    assert (done.returncode, done.stderr) == (READER_GONE, "")


def test_bench_with_its_reader_gone_ends_quietly(config):
    root = config.parent
    done = run_with_reader_gone(
        ["bench", str(root / "questions.jsonl"), "--repos", str(root / "estate")]
    )
    assert (done.returncode, done.stderr) == (READER_GONE, "")
