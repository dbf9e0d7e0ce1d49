"""A fake GitLab on loopback for every integration test that needs a forge."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.gitlab import FakeGitLab, Recorder

TOKEN = "glpat-test-0123456789"


@pytest.fixture
def fake(tmp_path: Path, home: Path) -> Iterator[FakeGitLab]:
    """A fake forge that demands the token for git over HTTP."""
    with FakeGitLab(tmp_path / "upstream", token=TOKEN) as forge:
        yield forge


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    """A foreign host on another loopback address and port, recording what reaches it."""
    with Recorder() as foreign:
        yield foreign
