"""Fixtures shared by tests and features: an isolated home directory."""

from __future__ import annotations

from pathlib import Path

import pytest


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
