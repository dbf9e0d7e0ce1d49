"""Running ``python -m bot.cli`` as a process whose reader has gone, as with ``| head -n1``."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_with_reader_gone(argv: Sequence[str], cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run the CLI from this checkout with ``argv``; its standard output is a pipe nobody reads."""
    reader, writer = os.pipe()
    os.close(reader)  # gone before the first byte: every write fails, whatever its timing
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    try:
        return subprocess.run(
            [sys.executable, "-m", "bot.cli", *argv],
            cwd=cwd,
            env=env,
            stdout=writer,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(writer)
