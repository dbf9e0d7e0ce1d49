"""SSH clones: a fake ``ssh`` on PATH runs the real ``git-upload-pack`` locally."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from bot.engine import Engine
from tests.fakes.estate import configure, upstream
from tests.fakes.gitlab import FakeGitLab
from tests.integration.conftest import TOKEN

FAKE_SSH = """#!/bin/sh
# Record how we were called, then serve the repository the way sshd would.
printf '%s\\n' "$@" >> "{log}"
for last; do :; done
cd "{root}" && exec sh -c "$last"
"""


@pytest.fixture
def fake_ssh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake: FakeGitLab) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "ssh.log"
    script = bin_dir / "ssh"
    script.write_text(FAKE_SSH.format(log=log, root=fake.git_root))
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return log


async def test_ssh_clones_use_the_key_and_pinned_hosts_and_never_https(tmp_path, fake, fake_ssh):
    key, known = tmp_path / "id_ed25519", tmp_path / "known_hosts"
    key.write_text("not a real key\n")
    known.write_text("127.0.0.1 ssh-ed25519 AAAA\n")
    upstream(fake, "acme/a", {"README.md": "# A\n\nAnvils.\n"}, ssh_url="git@127.0.0.1:acme/a.git")
    upstream(fake, "acme/b", {"README.md": "# B\n"}, ssh_url="git@elsewhere.example:acme/b.git")
    fake.feed = ["acme/a", "acme/b"]
    config = configure(
        tmp_path, fake, token=TOKEN, index={"ssh": {"key": str(key), "known_hosts": str(known)}}
    )
    async with await Engine.open(config) as engine:
        report = await engine.refresh()
        assert (await engine.retrieve("anvils")).results
    outcomes = {o.name: o for o in report.outcomes}
    assert outcomes["acme/a"].status == "indexed"
    assert outcomes["acme/b"].status == "failed"
    assert "not the configured forge" in (outcomes["acme/b"].error or "")
    calls = fake_ssh.read_text().splitlines()
    assert "StrictHostKeyChecking=yes" in calls
    assert f"UserKnownHostsFile={known}" in calls
    assert str(key) in calls
    assert "elsewhere.example" not in " ".join(calls)
    assert not [r for r in fake.log if r.is_git]  # nothing went over HTTPS
    assert shlex.quote(TOKEN) not in fake_ssh.read_text()
