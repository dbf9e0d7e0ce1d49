"""SIGTERM held back while a command starts, until its event loop can take it.

A one-shot command stops on SIGTERM the way Ctrl-C stops it, through its event loop
(``event_loop.run``): what it holds is let go of in order, and it says so in one line. Before
that loop runs, SIGTERM's default would end it without a word, and the imports alone take most
of a second. Held (blocked), a SIGTERM stays pending with the kernel at no cost, until
``event_loop.run`` takes it or lets it through. Only ``signal`` is imported here, so that
holding it can come before every other import.
"""

from __future__ import annotations

import signal

_TERM = {signal.SIGTERM}


def hold() -> None:
    """Keep any SIGTERM pending from now until ``release``."""
    signal.pthread_sigmask(signal.SIG_BLOCK, _TERM)


def taken() -> bool:
    """Whether a SIGTERM arrived while held; one that did is taken, so releasing passes none."""
    if signal.SIGTERM not in signal.sigpending():
        return False
    signal.sigwait(_TERM)  # returns at once: it is pending
    return True


def release() -> None:
    """Let SIGTERM through again, to whatever handles it now (a held one at once)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _TERM)
