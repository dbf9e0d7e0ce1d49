"""Holding a CLI process at a point of its start-up, where an operator's signal could find it.

The process stops where it reads a named pipe, and goes on when the test closes its end: no
timing decides where the signal lands.
"""

from __future__ import annotations

import errno
import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# On a child's path, its sitecustomize holds the first import of a module (PHPBOTSCOUT_PAUSE_AT).
PAUSE_DIR = Path(__file__).parent / "startup_pause"


@contextmanager
def reading(fifo: Path, process: subprocess.Popen[str]) -> Iterator[int]:
    """Wait until ``process`` reads ``fifo``; inside, it waits there, and leaves when it closes.

    Yields the descriptor of the writing end, for what the process is to read.
    """
    deadline = time.monotonic() + 60
    while True:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError as exc:
            if exc.errno != errno.ENXIO:  # ENXIO: nobody has it open to read yet
                raise
        if process.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"the CLI never read {fifo.name} (exit {process.poll()})")
        time.sleep(0.001)  # polls for the reader; decides nothing by itself
    try:
        yield fd
    finally:
        os.close(fd)
