"""One refresh at a time for ``serve``: the schedule and the push webhook share this lock.

Both call the engine's ``refresh`` (THE refresh path, the one ``index build`` runs), never a
copy of it. A webhook push for a source already waiting its turn is not queued twice. At
shutdown the refresh in progress is cancelled: each source is written in its own
transaction, so an interrupted run leaves the previous index intact.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from bot.engine import Engine
from bot.errors import PhpbotscoutError
from bot.refresh import RefreshReport

log = logging.getLogger(__name__)


class Refresher:
    """Runs refreshes for ``serve``, never two at once."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[RefreshReport | None]] = set()
        self._queued: set[str] = set()
        self._due_waiting = False  # a refresh of the due sources is queued and not yet started
        self.runs = 0  # completed runs, for status and tests
        self.last: RefreshReport | None = None
        self._intervals_checked = False  # the refresh_intervals names, after the first refresh
        self._closed = False  # serve is stopping: nothing new starts

    @property
    def due_waiting(self) -> bool:
        """Whether a refresh of the due sources is waiting its turn (and so covers a new one)."""
        return self._due_waiting

    @property
    def running(self) -> bool:
        """Whether a refresh holds the lock now."""
        return self._lock.locked()

    async def run(
        self, only: Sequence[str] = (), *, due_only: bool = False, why: str = "schedule"
    ) -> RefreshReport | None:
        """Refresh (waiting for any refresh in progress first); ``None`` if it failed.

        A failure the engine explains (a forge rate limit, a source that vanished) is
        logged, not raised: the schedule carries on and tries again next time. Once the
        refresher is closed nothing starts: a scheduled tick that fired as serve began to
        stop would otherwise refresh an index about to close.
        """
        if self._closed:
            log.info("refresh not started (%s): serve is stopping", why)
            return None
        if due_only and not only:
            self._due_waiting = True
        task = asyncio.create_task(self._run(tuple(only), due_only, why))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return await task

    def request(self, source: str, why: str) -> bool:
        """Refresh ``source`` in the background.

        ``False`` if it is already waiting its turn, or the refresher is closed.
        """
        if self._closed or source in self._queued:
            return False
        self._queued.add(source)
        task = asyncio.create_task(self._run((source,), False, why))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return True

    async def _run(self, only: tuple[str, ...], due_only: bool, why: str) -> RefreshReport | None:
        async with self._lock:
            self._queued.difference_update(only)
            if due_only and not only:
                self._due_waiting = False  # from here, a new request needs a run of its own
            scope = ", ".join(only) if only else ("due sources" if due_only else "all sources")
            log.info("refresh of %s started (%s)", scope, why)
            try:
                report = await self.engine.refresh(only, due_only=due_only)
            except PhpbotscoutError as exc:
                log.warning("refresh of %s failed (%s): %s", scope, why, exc)
                return None
            self.runs += 1
            self.last = report
            done = [f"{o.name}: {o.status}" for o in report.outcomes]
            log.info(
                "refresh of %s finished in %.1f s: %s",
                scope,
                report.seconds,
                "; ".join(done) or "nothing due",
            )
            for failed in report.failed:
                log.warning("refresh of %s failed: %s", failed.name, failed.error)
            for error in report.errors:
                log.warning("refresh error: %s", error)
            if not self._intervals_checked:
                # Once, when the first refresh has found the sources, as index build says it.
                self._intervals_checked = True
                for warning in await self.engine.unmatched_interval_warnings():
                    log.warning("%s", warning)
            return report

    async def settle(self) -> None:
        """Wait until every refresh started so far has finished."""
        while self._tasks:
            await asyncio.wait(set(self._tasks))

    async def close(self) -> None:
        """Cancel refreshes waiting or in progress, wait for them to stop, and start no more."""
        self._closed = True
        tasks = set(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)
            log.info("stopped %d refreshes at shutdown", len(tasks))
