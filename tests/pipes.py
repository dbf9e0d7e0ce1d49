"""Running ``python -m bot.cli`` from this checkout as a process of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def checkout_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment, with ``extra``, for a child that runs ``bot`` from here.

    The checkout goes first on ``PYTHONPATH``: run from another directory, the child would
    otherwise import whichever copy of the package is installed, not the code under test.
    """
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, **(extra or {}), "PYTHONPATH": path}


def run_cli(
    argv: Sequence[str], cwd: Path = ROOT, stdout: int = subprocess.PIPE
) -> subprocess.CompletedProcess[str]:
    """Run the CLI with ``argv``, as a shell would; what it writes to standard error is kept.

    In its own process the CLI configures logging itself, which it cannot do inside a test
    run whose logging is already configured.
    """
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *argv],
        cwd=cwd,
        env=checkout_env(),
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        check=False,
    )


def start_cli(
    argv: Sequence[str], cwd: Path = ROOT, env: Mapping[str, str] | None = None
) -> subprocess.Popen[str]:
    """Start the CLI with ``argv`` (and ``env`` over this process's environment) and leave it
    running (``serve``); both streams are piped."""
    return subprocess.Popen(
        [sys.executable, "-m", "bot.cli", *argv],
        cwd=cwd,
        env=checkout_env(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def exited(process: subprocess.Popen[str], what: str, timeout: int = 30) -> tuple[int, str]:
    """Wait for a started CLI to exit; one that does not is killed and fails the test."""
    try:
        _, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
        raise AssertionError(f"the CLI did not {what} within {timeout} s:\n{err}") from None
    return process.returncode, err


def run_with_reader_gone(argv: Sequence[str], cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run the CLI with ``argv``; its standard output is a pipe nobody reads."""
    reader, writer = os.pipe()
    os.close(reader)  # gone before the first byte: every write fails, whatever its timing
    try:
        return run_cli(argv, cwd, stdout=writer)
    finally:
        os.close(writer)
