"""Transfers from the forge held open, to count how many a refresh makes at once.

Every fetch but the one of the source under test is held open until ``let_go``, so that a
run's two transfers are both under way as that source is read and found damaged. Then the
clone made again either starts beside them (a third at once) or waits its turn; both are
watched for, never a timer, and the held fetches are let go at the first.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from bot.clones import Clones, CloneState
from bot.engine import Engine
from bot.outcomes import Progress, QuietProgress, SourceOutcome
from bot.refresh import RefreshReport


class Transfers:
    """How many fetches and clones made again are under way, now and at most."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
        self.name = name
        self.lock = threading.Condition()
        self.now = self.most = 0
        self.let_go = threading.Event()
        self.reading = threading.Event()  # the source is read, two fetches under way
        self.cloning_again = threading.Event()
        sync, clone_again = Clones.sync, Clones.clone_again

        def held_sync(clones: Clones, name: str, *args: Any, **kwargs: Any) -> CloneState:
            with self._under_way():
                if name != self.name:
                    self.let_go.wait()
                return sync(clones, name, *args, **kwargs)

        def counted_clone_again(clones: Clones, *args: Any) -> CloneState:
            with self._under_way():
                self.cloning_again.set()
                self.let_go.set()  # the limit is broken already: nothing more to hold
                return clone_again(clones, *args)

        monkeypatch.setattr(Clones, "sync", held_sync)
        monkeypatch.setattr(Clones, "clone_again", counted_clone_again)

    @contextlib.contextmanager
    def _under_way(self) -> Iterator[None]:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
            self.lock.notify_all()
        try:
            yield
        finally:
            with self.lock:
                self.now -= 1

    def wait_for_two(self) -> None:
        """Wait, the first time the source is read, until two other fetches are under way."""
        if self.reading.is_set():  # the clone made again is read at once
            return
        with self.lock:
            self.lock.wait_for(lambda: self.now >= 2)
        self.reading.set()


class ReadBesideTwo(QuietProgress):
    """``progress``, reading the source first only while two other fetches are under way."""

    def __init__(self, transfers: Transfers, progress: Progress) -> None:
        self.transfers, self.progress = transfers, progress

    def source_started(self, name: str) -> None:
        self.progress.source_started(name)

    def file_read(self, name: str, path: str) -> None:
        # In the thread that reads it, so the event loop runs on meanwhile.
        if name == self.transfers.name:
            self.transfers.wait_for_two()

    def source_finished(self, outcome: SourceOutcome) -> None:
        self.progress.source_finished(outcome)


async def refresh_beside_two(
    engine: Engine, transfers: Transfers, progress: Progress
) -> RefreshReport:
    """Refresh, letting the held fetches go once the clone made again waits for a slot.

    One that does not wait lets them go itself as it starts, a third transfer at once.
    """
    refresh = asyncio.ensure_future(engine.refresh(progress=ReadBesideTwo(transfers, progress)))
    waits = asyncio.Event()
    refresh.add_done_callback(lambda _: waits.set())
    acquire = asyncio.Semaphore.acquire

    async def watched(slots: asyncio.Semaphore) -> bool:
        # The fetches take their slots in tasks of their own: the refresh only to clone again.
        if asyncio.current_task() is refresh and slots.locked():
            waits.set()
        return await acquire(slots)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(asyncio.Semaphore, "acquire", watched)
        try:
            await waits.wait()
        finally:
            transfers.let_go.set()
        return await refresh
