"""A command stopped by SIGTERM (a service manager, ``kill``, ``timeout``) part-way."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
from contextlib import closing
from pathlib import Path

from tests.fakes.estate import upstream
from tests.fakes.gitlab import FakeGitLab, Rule
from tests.gitrepo import make_repo
from tests.midwrite import signal_mid_write
from tests.pipes import checkout_env, exited, run_cli, start_cli
from tests.processes import descendants
from tests.starting import PAUSE_DIR, reading


def _estate(root: Path) -> None:
    for n in range(3):
        pages = {
            f"docs/page{i:03}.md": f"# Page {i}\n\n"
            + "".join(f"## Part {j}\n\nWidget {n} {i} part {j} turns.\n\n" for j in range(6))
            for i in range(200)
        }
        make_repo(root / "estate" / f"repo{n}", {"README.md": f"# Repo {n}\n", **pages})
    (root / "phpbotscout.toml").write_text(
        f'[sources]\nlocal = ["{root / "estate"}"]\n[index]\npath = "index.sqlite"\n'
    )


def _passages(db: Path) -> set[tuple[str, str, int, str]]:
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        return set(
            conn.execute(
                "SELECT d.source, d.path, c.ordinal, c.body FROM chunks c "
                "JOIN documents d ON d.id = c.document_id"
            )
        )


def test_a_build_stopped_by_sigterm_says_so_in_one_line_and_keeps_the_index(tmp_path, home):
    _estate(tmp_path)
    assert run_cli(["index", "build"], cwd=tmp_path).returncode == 0
    before = _passages(tmp_path / "index.sqlite")

    build = start_cli(["index", "build", "--force"], cwd=tmp_path)
    stopped = signal_mid_write(build, tmp_path / "index.sqlite", signal.SIGTERM)
    code, err = exited(build, "stop on SIGTERM")
    assert stopped, "the build finished before it could be stopped mid-write"

    assert code == 143
    assert err.splitlines() == [
        "stopped by SIGTERM: the index is as it was before the interrupted step; run the "
        "command again to finish it"
    ]
    assert _passages(tmp_path / "index.sqlite") == before
    status = run_cli(["index", "status", "--json"], cwd=tmp_path)
    assert status.returncode == 0 and status.stderr == ""


LEFT_AS_IT_WAS = (
    "the index is as it was before the interrupted step; run the command again to finish it"
)
STOPPED = f"stopped by SIGTERM: {LEFT_AS_IT_WAS}"


def test_a_sigterm_while_the_command_imports_stops_it_the_same_way(tmp_path, home, monkeypatch):
    # The imports are most of start-up; the first of the rich library is well inside them.
    make_repo(tmp_path / "estate" / "widgets", {"README.md": "# Widgets\n"})
    (tmp_path / "phpbotscout.toml").write_text(
        f'[sources]\nlocal = ["{tmp_path / "estate"}"]\n[index]\npath = "index.sqlite"\n'
    )
    fifo = tmp_path / "pause"
    os.mkfifo(fifo)
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(PAUSE_DIR), os.environ.get("PYTHONPATH")]))
    )
    status = start_cli(
        ["index", "status"], cwd=tmp_path, env={"PHPBOTSCOUT_PAUSE_AT": f"rich:{fifo}"}
    )
    with reading(fifo, status):
        os.kill(status.pid, signal.SIGTERM)
    code, err = exited(status, "stop on SIGTERM")

    assert (code, err.splitlines()) == (143, [STOPPED])
    assert not (tmp_path / "index.sqlite").exists()  # it stopped before anything began


def test_ctrl_c_while_git_clones_ends_git_at_once_and_keeps_the_index(tmp_path, home):
    # git runs in a session of its own, so the terminal's Ctrl-C reaches the build, not git:
    # the build has to end it itself, and say so as for any interrupted build.
    with FakeGitLab(tmp_path / "upstream") as fake:
        upstream(fake, "acme/widgets", {"README.md": "# Widgets\n\nWidgets turn.\n"})
        fake.feed = ["acme/widgets"]
        (tmp_path / "phpbotscout.toml").write_text(
            f'[gitlab]\ngroup = "acme"\n[gitlab.url]\napi = "{fake.api}"\n'
            f'[index]\npath = "index.sqlite"\nclones = "clones"\n'
            f'[index.feed]\nurl = "{fake.url}/feed.json"\n'
        )
        assert run_cli(["index", "build"], cwd=tmp_path).returncode == 0
        before = _passages(tmp_path / "index.sqlite")
        upstream(fake, "acme/gadgets", {"README.md": "# Gadgets\n\nGadgets spin.\n"})
        fake.feed.append("acme/gadgets")
        held = Rule(r"^/acme/gadgets\.git/git-upload-pack$", release=threading.Event())
        fake.rules = [held]

        build = subprocess.Popen(
            [sys.executable, "-m", "bot.cli", "index", "build"],
            cwd=tmp_path,
            env=checkout_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # a terminal's foreground process group, of its own
        )
        try:
            assert held.arrived.wait(60), "git never asked for the clone"
            started = descendants(build.pid)
            os.killpg(build.pid, signal.SIGINT)  # what Ctrl-C at the terminal sends
        finally:
            code, err = exited(build, "stop on Ctrl-C while git clones", timeout=15)

    assert (code, err.splitlines()) == (130, [f"interrupted: {LEFT_AS_IT_WAS}"])
    assert any(" clone " in p.command for p in started), started
    assert [p for p in started if p.running()] == []
    assert sorted(p.name for p in (tmp_path / "clones").iterdir()) == ["+lock", "acme%2Fwidgets"]
    assert _passages(tmp_path / "index.sqlite") == before
