"""Fixtures shared by tests and features: an isolated home, the fake model providers."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.claude_cli import FakeClaude
from tests.fakes.discord import FakeDiscord


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME and data directory, and no configuration or secrets from the machine."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    for name in (
        "PHPBOTSCOUT_CONFIG",
        "ANTHROPIC_API_KEY",
        "GITLAB_TOKEN",
        "DISCORD_TOKEN",
        "ANTHROPIC_BASE_URL",
        "PHPBOTSCOUT_WEBHOOK_SECRET",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return home


@pytest.fixture(scope="module")
def discord() -> Iterator[FakeDiscord]:
    """A fake Discord (REST and gateway) on loopback, shared by the tests of one module."""
    with FakeDiscord() as fake:
        yield fake


@pytest.fixture(scope="session")
def _anthropic_server() -> Iterator[FakeAnthropic]:
    server = FakeAnthropic().start()
    yield server
    server.stop()


@pytest.fixture
def fake_anthropic(_anthropic_server: FakeAnthropic) -> Iterator[FakeAnthropic]:
    """The fake Anthropic API on 127.0.0.1, with an empty script and no requests yet."""
    _anthropic_server.reset()
    yield _anthropic_server
    _anthropic_server.reset()


@pytest.fixture
def fake_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeClaude:
    """A fake ``claude`` binary, first on PATH."""
    fake = FakeClaude(tmp_path / "fake-bin")
    monkeypatch.setenv("PATH", f"{fake.directory}{os.pathsep}{os.environ.get('PATH', '')}")
    return fake
