"""``kill -9`` in the middle of ``index build`` writing a source, then build again."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from bot.cli import main
from tests.fakes.estate import upstream
from tests.fakes.gitlab import FakeGitLab
from tests.integration.conftest import TOKEN
from tests.midwrite import writer_is_mid_transaction
from tests.pipes import checkout_env


def _pages(n: int) -> dict[str, str | bytes | None]:
    return {
        f"docs/page{i:03}.md": "".join(
            f"# Page {i}\n\n"
            + "".join(f"## Section {j}\n\nWidget {i} part {j} turns.\n\n" for j in range(6))
        )
        for i in range(n)
    }


def _write_config(path: Path, fake: FakeGitLab, index: str) -> Path:
    config = path / f"{index}.toml"
    config.write_text(
        f'[gitlab]\ngroup = "{fake.group}"\n[gitlab.url]\napi = "{fake.api}"\n'
        f'[index]\npath = "{index}.sqlite"\nclones = "clones"\n'
        f'[index.feed]\nurl = "{fake.url}/feed.json"\n'
    )
    return config


def _snapshot(db: Path) -> set[tuple[str, str, int, str]]:
    with sqlite3.connect(db) as conn:
        return set(
            conn.execute(
                "SELECT d.source, d.path, c.ordinal, c.body FROM chunks c "
                "JOIN documents d ON d.id = c.document_id"
            )
        )


def test_a_build_killed_mid_write_leaves_a_consistent_index(tmp_path, fake, monkeypatch):
    for n in range(4):
        upstream(fake, f"acme/big{n}", {"README.md": "# Big\n\nBig.\n", **_pages(150)})
    fake.feed = [p.path for p in fake.projects]
    config = _write_config(tmp_path, fake, "killed")
    db = tmp_path / "killed.sqlite"
    build = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "--config", str(config), "index", "build", "--json"],
        cwd=tmp_path,
        env=checkout_env({"GITLAB_TOKEN": TOKEN, "HOME": str(tmp_path / "home")}),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    killed = False
    deadline = time.monotonic() + 60
    try:
        while build.poll() is None and time.monotonic() < deadline:
            if db.exists() and _documents(db) > 0 and writer_is_mid_transaction(db):
                os.kill(build.pid, signal.SIGKILL)
                killed = True
                break
            time.sleep(0.001)
    finally:
        if build.poll() is None and not killed:
            build.kill()
        build.wait()
    assert killed, "the build finished before it could be killed mid-write"
    assert build.returncode == -signal.SIGKILL

    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        _check_search_indexes(conn)
        partial = conn.execute("SELECT count(DISTINCT source) FROM documents").fetchone()[0]
    assert 0 < partial < 4  # some sources committed, the one being written did not

    monkeypatch.setenv("GITLAB_TOKEN", TOKEN)
    assert main(["--config", str(config), "index", "build", "--json"]) == 0
    with sqlite3.connect(db) as conn:
        duplicates = conn.execute(
            "SELECT document_id, ordinal FROM chunks GROUP BY document_id, ordinal "
            "HAVING count(*) > 1"
        ).fetchall()
        assert duplicates == []
        _check_search_indexes(conn)

    fresh = _write_config(tmp_path, fake, "fresh")
    assert main(["--config", str(fresh), "index", "build", "--json"]) == 0
    assert _snapshot(db) == _snapshot(tmp_path / "fresh.sqlite")
    leftovers = [p for p in (tmp_path / "clones").iterdir() if p.name.startswith("+")]
    assert [p.name for p in leftovers] == ["+lock"]  # the lock file stays, unlocked


def _check_search_indexes(conn: sqlite3.Connection) -> None:
    """Each full-text index is sound, and the pages index holds exactly the pages of prose."""
    for table in ("chunks_head_fts", "chunks_body_fts", "pages_fts"):
        conn.execute(f"INSERT INTO {table} ({table}) VALUES ('integrity-check')")
    pages = {row[0] for row in conn.execute("SELECT rowid FROM pages_fts")}
    prose = {row[0] for row in conn.execute("SELECT id FROM documents WHERE kind <> 'code'")}
    assert pages == prose


def _documents(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0) as conn:
            return int(conn.execute("SELECT count(*) FROM documents").fetchone()[0])
    except sqlite3.OperationalError:
        return 0
