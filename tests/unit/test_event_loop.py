"""The event loop a command runs on: uvloop for ``serve`` where installed, asyncio otherwise."""

import asyncio
import logging
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


def _raised(message: str) -> RuntimeError:
    try:
        raise RuntimeError(message)
    except RuntimeError as exc:
        return exc


async def _hand_to_loop(*failures: BaseException) -> None:
    loop = asyncio.get_running_loop()
    for exc in failures:
        loop.call_exception_handler({"message": "closing raised", "exception": exc})


def test_a_failure_reported_elsewhere_is_not_logged_again_and_others_keep_their_traceback(
    caplog,
):
    reported, other = _raised("reported already"), _raised("something else")

    async def main() -> None:
        with event_loop.reported_elsewhere(reported):
            await _hand_to_loop(reported, other)
        await _hand_to_loop(reported)  # outside, the loop's own handler is back

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        event_loop.run(main(), fast=True)
    logged = [r.exc_info[1] for r in caplog.records if r.exc_info]
    assert logged == [other, reported]


def test_without_a_failure_every_exception_reaches_the_handler_it_had():
    seen: list[BaseException] = []

    async def main() -> None:
        asyncio.get_running_loop().set_exception_handler(lambda _, c: seen.append(c["exception"]))
        with event_loop.reported_elsewhere(None):
            await _hand_to_loop(_raised("one"))
        with event_loop.reported_elsewhere(_raised("not this")):
            await _hand_to_loop(_raised("two"))

    event_loop.run(main())
    assert [str(e) for e in seen] == ["one", "two"]
