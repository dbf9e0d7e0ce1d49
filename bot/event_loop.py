"""Which event loop a command runs on: uvloop for the long-running service where it exists.

``serve`` spends most of its time in the event loop itself: gateway frames, REST calls to
Discord and the model, and the hand-offs from the database threads. uvloop runs that same
asyncio code on libuv, which under load makes every answer markedly cheaper (BENCHMARKS.md).
It is a dependency wherever it builds (not on Windows); where it is missing, asyncio's own
loop runs instead, with the same behaviour, only slower.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from bot import sigterm

T = TypeVar("T")

LoopFactory = Callable[[], asyncio.AbstractEventLoop]


def fast_loop_factory() -> LoopFactory | None:
    """Uvloop's loop factory, or ``None`` (asyncio's default loop) when uvloop is missing."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


class Terminated(Exception):
    """A one-shot command was stopped by SIGTERM, the way Ctrl-C stops it."""


def run(main: Coroutine[Any, Any, T], *, fast: bool = False, stop_on_term: bool = False) -> T:
    """Run ``main`` to completion as ``asyncio.run`` does; ``fast`` picks uvloop if present.

    ``stop_on_term``: SIGTERM cancels ``main`` as asyncio cancels it on Ctrl-C, so that what it
    holds is let go of in order, and then raises ``Terminated``; otherwise SIGTERM would end
    the process on the spot, without a word. One held while the command started
    (``sigterm.hold``) raises ``Terminated`` before ``main`` runs at all. ``serve`` handles its
    signals itself; one held for it is let through to SIGTERM's default, as before.

    Raises:
        Terminated: ``stop_on_term`` is set and SIGTERM arrived.
    """
    # Signal handlers belong to the main thread; elsewhere SIGTERM is not this loop's to take.
    on_term = stop_on_term and threading.current_thread() is threading.main_thread()
    if on_term and sigterm.taken():  # it came while the command started: nothing has begun
        main.close()
        raise Terminated
    if not on_term:
        sigterm.release()  # one held while it started acts as it would have (serve's default)
    with asyncio.Runner(loop_factory=fast_loop_factory() if fast else None) as runner:
        return runner.run(_stopping_on_term(main) if on_term else main)


async def _stopping_on_term(main: Coroutine[Any, Any, T]) -> T:
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None  # the runner's main task
    received: list[int] = []

    def stop() -> None:
        received.append(signal.SIGTERM)
        task.cancel()

    loop.add_signal_handler(signal.SIGTERM, stop)
    sigterm.release()  # one that came since ``run`` looked is this handler's now
    try:
        return await main
    except asyncio.CancelledError:
        if received:
            raise Terminated from None
        raise
    finally:
        loop.remove_signal_handler(signal.SIGTERM)


def loop_name(loop: asyncio.AbstractEventLoop) -> str:
    """``uvloop`` or ``asyncio``: which implementation ``loop`` is, for the service's log."""
    return type(loop).__module__.split(".")[0]


@contextmanager
def reported_elsewhere(failure: BaseException | None) -> Iterator[None]:
    """While inside, the running loop's exception handler passes over ``failure`` itself.

    For a failure the caller reports on its own: a library that hands that same exception
    to the loop again while it cleans up would have it logged a second time, with a
    traceback that reads like a crash. Every other exception reaches the handler as before.
    """
    if failure is None:
        yield
        return
    loop = asyncio.get_running_loop()
    previous = loop.get_exception_handler()

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("exception") is failure:
            return
        if previous is None:
            loop.default_exception_handler(context)
        else:
            previous(loop, context)

    loop.set_exception_handler(handle)
    try:
        yield
    finally:
        loop.set_exception_handler(previous)
