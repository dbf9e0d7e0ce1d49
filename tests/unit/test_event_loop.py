"""The event loop a command runs on: uvloop for ``serve`` where installed, asyncio otherwise."""

import asyncio
import subprocess
import sys
from pathlib import Path

from bot import event_loop

ROOT = Path(__file__).resolve().parents[2]


async def _which() -> str:
    await asyncio.sleep(0)
    return event_loop.loop_name(asyncio.get_running_loop())


def test_fast_runs_on_uvloop_which_linux_installs():
    assert event_loop.run(_which(), fast=True) == "uvloop"


def test_otherwise_asyncio_own_loop_runs():
    assert event_loop.run(_which()) == "asyncio"


def test_without_uvloop_fast_falls_back_to_asyncio():
    # A fresh interpreter in which importing uvloop fails, as on a platform it cannot build on.
    script = (
        "import sys; sys.modules['uvloop'] = None\n"
        "import asyncio\n"
        "from bot import event_loop\n"
        "async def which():\n"
        "    return event_loop.loop_name(asyncio.get_running_loop())\n"
        "assert event_loop.fast_loop_factory() is None\n"
        "print(event_loop.run(which(), fast=True))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "asyncio"
