"""Which event loop a command runs on: uvloop for the long-running service where it exists.

``serve`` spends most of its time in the event loop itself: gateway frames, REST calls to
Discord and the model, and the hand-offs from the database threads. uvloop runs that same
asyncio code on libuv, which under load makes every answer markedly cheaper (BENCHMARKS.md).
It is a dependency wherever it builds (not on Windows); where it is missing, asyncio's own
loop runs instead, with the same behaviour, only slower.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")

LoopFactory = Callable[[], asyncio.AbstractEventLoop]


def fast_loop_factory() -> LoopFactory | None:
    """Uvloop's loop factory, or ``None`` (asyncio's default loop) when uvloop is missing."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def run(main: Coroutine[Any, Any, T], *, fast: bool = False) -> T:
    """Run ``main`` to completion as ``asyncio.run`` does; ``fast`` picks uvloop if present."""
    with asyncio.Runner(loop_factory=fast_loop_factory() if fast else None) as runner:
        return runner.run(main)


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
