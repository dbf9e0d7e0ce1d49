"""SSH clones: a fake ``ssh`` on PATH runs the real ``git-upload-pack`` locally, or refuses."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from bot.engine import Engine
from tests.fakes.estate import configure, upstream
from tests.fakes.gitlab import FakeGitLab
from tests.fakes.ssh import (
    HOST_KEY_CHANGED,
    HOST_KEY_UNKNOWN,
    KEY_REFUSED,
    refusing_ssh,
    serving_ssh,
)
from tests.integration.conftest import TOKEN


@pytest.fixture
def fake_ssh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake: FakeGitLab) -> Path:
    log = tmp_path / "ssh.log"
    serving_ssh(tmp_path / "bin", log, fake.git_root, monkeypatch)
    return log


def ssh_files(tmp_path: Path) -> dict[str, dict[str, str]]:
    key, known = tmp_path / "id_ed25519", tmp_path / "known_hosts"
    key.write_text("not a real key\n")
    known.write_text("127.0.0.1 ssh-ed25519 AAAA\n")
    return {"ssh": {"key": str(key), "known_hosts": str(known)}}


async def test_ssh_clones_use_the_key_and_pinned_hosts_and_never_https(tmp_path, fake, fake_ssh):
    upstream(fake, "acme/a", {"README.md": "# A\n\nAnvils.\n"}, ssh_url="git@127.0.0.1:acme/a.git")
    upstream(fake, "acme/b", {"README.md": "# B\n"}, ssh_url="git@elsewhere.example:acme/b.git")
    fake.feed = ["acme/a", "acme/b"]
    ssh = ssh_files(tmp_path)
    config = configure(tmp_path, fake, token=TOKEN, index=ssh)
    async with await Engine.open(config) as engine:
        report = await engine.refresh()
        assert (await engine.retrieve("anvils")).results
    outcomes = {o.name: o for o in report.outcomes}
    assert outcomes["acme/a"].status == "indexed"
    assert outcomes["acme/b"].status == "failed"
    assert "not the configured forge" in (outcomes["acme/b"].error or "")
    calls = fake_ssh.read_text().splitlines()
    assert "StrictHostKeyChecking=yes" in calls
    assert f"UserKnownHostsFile={ssh['ssh']['known_hosts']}" in calls
    assert ssh["ssh"]["key"] in calls
    assert "elsewhere.example" not in " ".join(calls)
    assert not [r for r in fake.log if r.is_git]  # nothing went over HTTPS
    assert shlex.quote(TOKEN) not in fake_ssh.read_text()


@pytest.mark.parametrize(
    ("said", "advice"),
    [
        (KEY_REFUSED, ["GitLab at 127.0.0.1 refused", "index.ssh.key", "as a deploy key"]),
        (
            HOST_KEY_UNKNOWN,
            [
                "Add the forge's host key for 127.0.0.1 to index.ssh.known_hosts",
                "'ssh-keyscan 127.0.0.1' prints it",
            ],
        ),
        (
            HOST_KEY_CHANGED,
            [
                "no longer matches the one pinned for 127.0.0.1 in index.ssh.known_hosts",
                "replace the line for 127.0.0.1",
                "intercepted",
            ],
        ),
    ],
    ids=["key-refused", "host-key-unknown", "host-key-changed"],
)
async def test_an_ssh_refusal_says_which_setting_to_mend_and_keeps_the_index(
    tmp_path, fake, fake_ssh, monkeypatch, said, advice
):
    upstream(fake, "acme/a", {"README.md": "# A\n\nAnvils.\n"}, ssh_url="git@127.0.0.1:acme/a.git")
    fake.feed = ["acme/a"]
    config = configure(tmp_path, fake, index=ssh_files(tmp_path))
    async with await Engine.open(config) as engine:
        await engine.refresh()
        refusing_ssh(tmp_path / "bin", fake_ssh, said, monkeypatch)
        report = await engine.refresh()
        assert (await engine.retrieve("anvils")).results  # the last index answers on
    [outcome] = report.outcomes
    assert outcome.status == "failed"
    error = " ".join((outcome.error or "").split())
    assert "cannot reach" not in error
    assert "git@" not in error  # the host, not the URL's user
    for words in advice:
        assert words in error, error
    assert (tmp_path / "clones" / "acme%2Fa" / ".git").is_dir()  # the clone is kept


async def test_an_ssh_refusal_off_port_22_names_the_host_as_known_hosts_does(
    tmp_path, fake, monkeypatch
):
    url = "ssh://git@127.0.0.1:2222/acme/a.git"
    upstream(fake, "acme/a", {"README.md": "# A\n"}, ssh_url=url)
    fake.feed = ["acme/a"]
    refusing_ssh(tmp_path / "bin", tmp_path / "ssh.log", HOST_KEY_UNKNOWN, monkeypatch)
    config = configure(tmp_path, fake, index=ssh_files(tmp_path))
    async with await Engine.open(config) as engine:
        report = await engine.refresh()
    [outcome] = report.outcomes
    error = " ".join((outcome.error or "").split())
    assert "host key for [127.0.0.1]:2222 to index.ssh.known_hosts" in error, error
    assert "'ssh-keyscan -p 2222 127.0.0.1' prints it" in error, error
    assert "git@" not in error
