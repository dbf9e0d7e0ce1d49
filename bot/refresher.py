"""One refresh at a time for ``serve``: the schedule and the push webhook share this lock.

Both call the engine's ``refresh`` (THE refresh path, the one ``index build`` runs), never a
copy of it. Pushes that arrive while they must wait share the next run, so a burst of pushes to
many sources costs one discovery of the group, not one each, and a source already waiting its
turn is not queued twice. At shutdown the refresh in progress is cancelled: each source is
written in its own transaction, so an interrupted run leaves the previous index intact.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Sequence

from bot.engine import Engine
from bot.errors import ForgeError, PhpbotscoutError, SourceError, UsageError
from bot.refresh import RefreshReport

log = logging.getLogger(__name__)


class Refresher:
    """Runs refreshes for ``serve``, never two at once."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[RefreshReport | None]] = set()
        # The sources requested and not yet started, each with why, in the order they came:
        # while any wait, one task waits for the lock to refresh them all together.
        self._requested: dict[str, str] = {}
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
        return await self._start(self._run(tuple(only), due_only, why))

    def request(self, source: str, why: str) -> bool:
        """Refresh ``source`` in the background, together with every source requested meanwhile.

        With no source waiting, a run for it is queued (it starts once no refresh holds the
        lock); otherwise it joins the sources already waiting for that run, which refreshes
        them all with one discovery. ``False`` if ``source``
        is already waiting its turn, or the refresher is closed.
        """
        if self._closed or source in self._requested:
            return False
        if not self._requested:
            self._start(self._run_requested())
        self._requested[source] = why
        return True

    def _start(
        self, work: Coroutine[None, None, RefreshReport | None]
    ) -> asyncio.Task[RefreshReport | None]:
        """Run ``work`` as a task that ``close`` cancels and ``settle`` waits for."""
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _run_requested(self) -> RefreshReport | None:
        async with self._lock:
            # Taken as the lock is: a request from here on waits for the run after this one.
            requested, self._requested = self._requested, {}
            why = "; ".join(dict.fromkeys(requested.values()))
            return await self._refresh(tuple(requested), False, why)

    async def _run(self, only: tuple[str, ...], due_only: bool, why: str) -> RefreshReport | None:
        async with self._lock:
            if due_only and not only:
                self._due_waiting = False  # from here, a new request needs a run of its own
            return await self._refresh(only, due_only, why)

    async def _refresh(
        self, only: tuple[str, ...], due_only: bool, why: str
    ) -> RefreshReport | None:
        scope = _scope(only, due_only)
        log.info("refresh of %s started (%s)", scope, why)
        try:
            report = await self.engine.refresh(only, due_only=due_only)
        except PhpbotscoutError as exc:
            if only[1:] and _refused(exc):
                # One name the run refused (gone since its push, unresolved again) must not
                # cost the others their refresh: each alone, the refusal names its own source.
                log.info("refresh of %s refused (%s); refreshing each alone", scope, why)
                for name in only:
                    await self._refresh((name,), False, why)
                return None
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


def _scope(only: tuple[str, ...], due_only: bool) -> str:
    """What a run refreshes, for its log lines."""
    if not only:
        return "due sources" if due_only else "all sources"
    return ", ".join(only)


def _refused(exc: PhpbotscoutError) -> bool:
    """Whether the engine refused the names it was given, before refreshing any of them.

    That is a usage error (a name no source is called) or a source error that is not the
    forge's (a source unresolved); a forge failing, a rate limit above all, would fail each
    name alone just the same. Any other source error escaping a shared run is read the same
    way: retrying its names one by one costs a discovery each, and loses none of them.
    """
    return isinstance(exc, UsageError) or (
        isinstance(exc, SourceError) and not isinstance(exc, ForgeError)
    )
