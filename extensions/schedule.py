"""The scheduled refresh inside ``serve``: a ticker calling the same refresh ``index build`` runs.

There is one job per distinct refresh interval (``index.refresh_interval`` and every
``sources.refresh_intervals`` value). Each tick refreshes the sources that are due, whichever
job fired, so every source is looked at about as often as its own interval asks. A tick that
falls while a refresh runs queues one refresh of the due sources to follow it, and any further
tick meanwhile joins that one (as do ticks missed while the loop was busy: ``coalesce``);
every run goes through the ``Refresher``'s lock, which the push webhook shares: never two
refreshes at once. The first tick runs at start-up, so a source that fell due while ``serve``
was down does not wait a whole interval.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from apscheduler.events import EVENT_JOB_ERROR, JobExecutionEvent
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.interval import IntervalTrigger

from bot.config import Config
from bot.refresher import Refresher

log = logging.getLogger(__name__)


def intervals(config: Config) -> list[float]:
    """The distinct refresh intervals, shortest first, in seconds."""
    return sorted({config.refresh_interval, *config.source_intervals.values()})


class RefreshSchedule:
    """An APScheduler ``AsyncIOScheduler`` with one due-refresh job per interval."""

    def __init__(
        self,
        refresher: Refresher,
        every: Iterable[float],
        *,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        self.refresher = refresher
        self.every = sorted(set(every))
        self._on_error = on_error
        self._scheduler = AsyncIOScheduler(timezone=UTC)

    def start(self) -> None:
        """Add the jobs and start ticking (on the running event loop)."""
        for i, seconds in enumerate(self.every):
            first: dict[str, Any] = {"next_run_time": datetime.now(UTC)} if i == 0 else {}
            self._scheduler.add_job(
                self._tick,
                IntervalTrigger(seconds=seconds, timezone=UTC),
                id=f"refresh-every-{seconds:g}s",
                name=f"refresh due sources (every {seconds:g} s)",
                # One tick awaiting the refresh in progress, one awaiting the refresh queued
                # behind it, and one finding that queued and returning: never a skipped tick.
                max_instances=3,
                coalesce=True,
                misfire_grace_time=None,  # a late tick still runs: refreshing late beats never
                **first,
            )
        self._scheduler.add_listener(self._job_failed, EVENT_JOB_ERROR)
        self._scheduler.start()
        log.info("refresh schedule started: every %s s", ", ".join(f"{s:g}" for s in self.every))

    def jobs(self) -> list[tuple[str, float]]:
        """Each job's id and interval in seconds."""
        return [
            (job.id, job.trigger.interval.total_seconds()) for job in self._scheduler.get_jobs()
        ]

    async def _tick(self) -> None:
        if self.refresher.due_waiting:
            log.info("scheduled tick joins the refresh of due sources already waiting")
            return
        try:
            await self.refresher.run(due_only=True, why="schedule")
        except asyncio.CancelledError:
            # The refresher cancels its runs when serve stops; that is the end of this tick,
            # not a failure of the job.
            log.info("scheduled refresh stopped: serve is shutting down")

    def _job_failed(self, event: JobExecutionEvent) -> None:
        log.error("scheduled refresh failed: %r", event.exception)
        if self._on_error is not None and event.exception is not None:
            self._on_error(event.exception)

    def pause(self) -> None:
        """Start no more ticks, at once: the first step of stopping ``serve``.

        APScheduler's ``shutdown`` only takes effect on the loop's next turn, so a tick falling
        due meanwhile would still be started, and then cancelled before it runs, which
        APScheduler logs as an error with a traceback. Pausing is immediate.
        """
        if self._scheduler.running:
            self._scheduler.pause()

    def shutdown(self) -> None:
        """Stop the scheduler, once ``pause`` and the refresher's ``close`` have run.

        It takes effect on the loop's next turn and cancels any tick still unfinished, which
        APScheduler logs as an error. By then none is: the refresher's ``close`` ended the ticks
        waiting on a refresh, and a tick started just before the pause finds it closed and
        returns at once.
        """
        if self._scheduler.running:
            self._scheduler.shutdown(wait=False)
