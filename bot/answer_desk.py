"""Where questions from chat are taken in: a rate limit per person, and a clean closing time.

``serve`` answers many people at once. The desk admits each ask against the person's rate
limit, runs the engine's ``ask`` as a task it can account for, and, when the process is told
to stop, turns new asks away, lets the ones in flight finish for a while, and then cancels
the rest so each asker is told the bot is restarting instead of being left waiting.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from bot.answer.outcome import Outcome
from bot.engine import Engine
from bot.errors import ShuttingDown
from bot.ratelimit import RateLimiter

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Visit:
    """One ask at the desk: ``retry_after`` seconds when refused by the rate limit, else 0."""

    user: str
    retry_after: float

    @property
    def admitted(self) -> bool:
        """Whether the ask may go ahead."""
        return self.retry_after == 0


class AnswerDesk:
    """Admits, runs and, at shutdown, drains the questions asked in chat."""

    def __init__(self, engine: Engine, limiter: RateLimiter) -> None:
        self.engine = engine
        self.limiter = limiter
        self._open = True
        self._answering: set[asyncio.Task[Outcome]] = set()
        self._visits = 0
        self._no_visits = asyncio.Event()
        self._no_visits.set()
        self._hurry = asyncio.Event()  # a second stop signal: the grace is over now

    @property
    def open(self) -> bool:
        """Whether new asks are taken."""
        return self._open

    @asynccontextmanager
    async def visit(self, user: str) -> AsyncIterator[Visit]:
        """Admit one ask by ``user`` for as long as it takes to answer it and reply.

        Raises:
            ShuttingDown: the desk is closed.
        """
        if not self._open:
            raise ShuttingDown()
        self._visits += 1
        self._no_visits.clear()
        try:
            yield Visit(user, self.limiter.acquire(user))
        finally:
            self._visits -= 1
            if not self._visits:
                self._no_visits.set()

    async def ask(self, question: str) -> Outcome:
        """Answer ``question`` through the engine, as the CLI does (origin ``discord``).

        Raises:
            ShuttingDown: the desk closed before the answer was ready.
            PhpbotscoutError: whatever ``Engine.ask`` raises.
        """
        if not self._open:
            raise ShuttingDown()
        task = asyncio.create_task(self.engine.ask(question, origin="discord"))
        self._answering.add(task)
        task.add_done_callback(self._answering.discard)
        # Waiting, not awaiting: if the task is cancelled at shutdown this caller is not,
        # and can still tell the asker why.
        await asyncio.wait({task})
        if task.cancelled():
            raise ShuttingDown()
        return task.result()

    def hurry(self) -> None:
        """End the grace a drain gives answers in flight: their askers are told at once."""
        self._hurry.set()

    async def drain(self, grace: float, reply_grace: float = 5.0) -> int:
        """Stop taking asks; give those in flight ``grace`` seconds, then cancel the rest.

        Returns how many answers were cancelled. Waits (up to ``reply_grace`` more seconds)
        until every asker has been replied to, so the Discord connection can close after.
        """
        self._open = False
        cancelled = 0
        if self._answering:
            log.info("waiting up to %.0f s for %d answers", grace, len(self._answering))
            # Whichever comes first: every answer done, the grace over, or a second signal.
            # The gather is never cancelled here: that would cancel the answers themselves.
            hurried: asyncio.Future[Any] = asyncio.ensure_future(self._hurry.wait())
            answered: asyncio.Future[Any] = asyncio.gather(*self._answering, return_exceptions=True)
            try:
                await asyncio.wait(
                    {answered, hurried}, timeout=grace, return_when=asyncio.FIRST_COMPLETED
                )
            finally:
                hurried.cancel()
            pending = {task for task in self._answering if not task.done()}
            for task in pending:
                task.cancel()
            cancelled = len(pending)
            if pending:
                await asyncio.wait(pending)
                log.warning("cancelled %d unfinished answers at shutdown", cancelled)
        try:
            await asyncio.wait_for(self._no_visits.wait(), reply_grace)
        except TimeoutError:
            log.warning("%d askers were not replied to before shutdown", self._visits)
        return cancelled
