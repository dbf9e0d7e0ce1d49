"""A file or directory this user may not read, for as long as a test needs it so."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def may_not_read(path: Path) -> Iterator[None]:
    """Take every permission from ``path`` for the block, and give them back after.

    A process that reads through any permission (root) has nothing to test: the test is skipped.
    """
    mode = path.stat().st_mode
    path.chmod(0)
    try:
        _skip_if_read_anyway(path)
        yield
    finally:
        path.chmod(mode)


def deny_reading(path: Path, request: pytest.FixtureRequest) -> None:
    """Take every permission from ``path`` until the test ends, as ``may_not_read`` does."""
    mode = path.stat().st_mode
    path.chmod(0)
    request.addfinalizer(lambda: path.chmod(mode))
    _skip_if_read_anyway(path)


def _skip_if_read_anyway(path: Path) -> None:
    if os.access(path, os.R_OK):
        pytest.skip("this process reads files it may not (root)")
