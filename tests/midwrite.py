"""Stopping a command part-way through writing the index, as an operator's signal would."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import time
from pathlib import Path


def writer_is_mid_transaction(db: Path) -> bool:
    """True while another connection holds the write lock (a source is being written)."""
    probe = sqlite3.connect(db, timeout=0, isolation_level=None)
    try:
        probe.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError:
        return True
    else:
        probe.execute("ROLLBACK")
        return False
    finally:
        probe.close()


def signal_mid_write(process: subprocess.Popen[str], db: Path, signum: int) -> bool:
    """Send ``signum`` to ``process`` while it writes ``db``; whether it came in time to."""
    deadline = time.monotonic() + 60
    while process.poll() is None and time.monotonic() < deadline:
        if db.exists() and writer_is_mid_transaction(db):
            os.kill(process.pid, signum)
            return True
        time.sleep(0.001)  # polls for the write; decides nothing by itself
    return False
