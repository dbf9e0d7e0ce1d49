"""A composer that lets only so many model calls run at once; the rest wait their turn.

Discord can deliver many questions in the same second. Each one retrieves its passages at
once, but only ``limit`` of them talk to the model together; the others queue on a
semaphore, which hands its slots out first come, first served, so queued questions are
answered in the order they reached the model. A question waits in that queue ``wait``
seconds at most (see ``queue_wait``); past that it is turned away as ``Busy``, an error the
asker is told about at once, instead of waiting on a model that is hanging or far behind.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from bot.answer.composer import Answer, Composer, Passage
from bot.errors import Busy

# Discord accepts the reply to a slash command for 15 minutes; a reply after that is lost and
# the asker is left looking at "thinking…" for good.
INTERACTION_LIFETIME = 15 * 60.0
REPLY_MARGIN = 60.0  # for retrieval, recording and sending the reply itself


def queue_wait(answer_timeout: float) -> float:
    """How long a question may wait for its turn with the model, given ``answer.timeout``.

    One ``answer.timeout``: every call with the model ends within that, answered or failed, so
    a question still waiting after it is behind a model that keeps hanging, or in a line too
    long to be worth waiting in. Never so long, though, that the wait and the answer together
    could outlast Discord's interaction (at the longest ``answer.timeout``, 600 s, it is 240 s).
    """
    return min(answer_timeout, INTERACTION_LIFETIME - REPLY_MARGIN - answer_timeout)


class BoundedComposer:
    """Wraps a composer so that at most ``limit`` ``compose`` calls are in flight."""

    def __init__(self, inner: Composer, limit: int, *, wait: float) -> None:
        if limit < 1:
            raise ValueError("limit must be 1 or more")
        self.inner = inner
        self.limit = limit
        self.wait = wait  # seconds a call may wait for a free slot before it is turned away
        self._slots = asyncio.Semaphore(limit)
        self.in_flight = 0
        self.waiting = 0
        self.peak = 0  # the most calls ever in flight together

    @property
    def provider(self) -> str:
        """The wrapped composer's provider."""
        return self.inner.provider

    @property
    def model(self) -> str:
        """The wrapped composer's model."""
        return self.inner.model

    async def compose(self, question: str, passages: Sequence[Passage]) -> Answer:
        """Wait for a free slot, then draft with the wrapped composer.

        Raises:
            Busy: no slot came free within ``wait`` seconds; the model was never asked.
        """
        self.waiting += 1
        try:
            # A timeout that fires as a slot is handed over gives the slot back (asyncio's
            # semaphore wakes the next waiter), so no slot is ever lost to a turned-away call.
            async with asyncio.timeout(self.wait):
                await self._slots.acquire()
        except TimeoutError:
            raise Busy(
                f"I'm busy: too many questions are waiting for the answering model, and this "
                f"one waited {self.wait:g} s without its turn coming, so it was not asked. "
                "Ask again in a minute."
            ) from None
        finally:
            self.waiting -= 1
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            return await self.inner.compose(question, passages)
        finally:
            self.in_flight -= 1
            self._slots.release()

    async def aclose(self) -> None:
        """Close the wrapped composer."""
        await self.inner.aclose()
