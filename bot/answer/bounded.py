"""A composer that lets only so many model calls run at once; the rest wait their turn.

Discord can deliver many questions in the same second. Each one retrieves its passages at
once, but only ``limit`` of them talk to the model together; the others queue on a
semaphore, which hands its slots out first come, first served, so queued questions are
answered in the order they reached the model.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from bot.answer.composer import Answer, Composer, Passage


class BoundedComposer:
    """Wraps a composer so that at most ``limit`` ``compose`` calls are in flight."""

    def __init__(self, inner: Composer, limit: int) -> None:
        if limit < 1:
            raise ValueError("limit must be 1 or more")
        self.inner = inner
        self.limit = limit
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
        """Wait for a free slot, then draft with the wrapped composer."""
        self.waiting += 1
        try:
            await self._slots.acquire()
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
