"""THE refresh: discover sources, decide verdicts, and re-index what moved.

``index build`` and the scheduler in ``serve`` both call ``refresh``; there is no second
path that could drift from this one. Each source is written in its own transaction, so a
failure costs that source's refresh and nothing else: its previous documents stay, and the
error is recorded for ``index status``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.config import Config
from bot.corpus.documents import CORPUS_VERSION
from bot.errors import SourceError, UsageError
from bot.forge.candidates import Candidate, Verdict
from bot.forge.local import discover_local, is_repository
from bot.index import catalog, writer
from bot.index.store import Store
from bot.indexing import plan_source
from bot.snapshot import DirectorySnapshot, GitSnapshot, Snapshot

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SourceOutcome:
    """What one source's refresh did."""

    name: str
    status: str  # "indexed", "unchanged" or "failed"
    written: int = 0  # documents read and (re)written
    kept: int = 0  # documents unchanged, only their commit moved
    chunks: int = 0  # chunks written
    skipped: int = 0  # files considered that yielded nothing
    seconds: float = 0.0
    error: str | None = None


@dataclass(frozen=True, slots=True)
class RefreshReport:
    """The outcome of one refresh run."""

    candidates: tuple[Candidate, ...]
    outcomes: tuple[SourceOutcome, ...]
    removed: tuple[str, ...]
    seconds: float

    @property
    def failed(self) -> list[SourceOutcome]:
        """The sources whose refresh failed."""
        return [o for o in self.outcomes if o.status == "failed"]


class Progress(Protocol):
    """Receives progress events; the CLI draws a bar from them, the scheduler logs them."""

    def source_started(self, name: str) -> None:
        """A source's refresh begins."""

    def file_read(self, name: str, path: str) -> None:
        """A file of the source was considered."""

    def source_finished(self, outcome: SourceOutcome) -> None:
        """A source's refresh ended."""


class QuietProgress:
    """Progress that only logs each finished source."""

    def source_started(self, name: str) -> None:
        """Nothing to show."""

    def file_read(self, name: str, path: str) -> None:
        """Nothing to show."""

    def source_finished(self, outcome: SourceOutcome) -> None:
        """Log one line per source."""
        log.info("refreshed %s: %s", outcome.name, outcome.status)


async def refresh(
    config: Config,
    store: Store,
    *,
    only: Sequence[str] = (),
    force: bool = False,
    progress: Progress | None = None,
) -> RefreshReport:
    """Discover every candidate, record its verdict, and re-index admitted sources that moved.

    Args:
        config: the validated configuration.
        store: the open index.
        only: refresh just these sources (by name); verdicts are still recorded for all.
        force: re-read every file of every refreshed source, changed or not.
        progress: receives progress events.

    Raises:
        UsageError: ``only`` names a source discovery did not find.
    """
    started = time.perf_counter()
    progress = progress or QuietProgress()
    candidates = discover_local(config.local_sources, config.exclude, embedded=config.embedded)
    names = {c.name for c in candidates}
    unknown = sorted(set(only) - names)
    if unknown:
        raise UsageError(
            f"No source called {', '.join(unknown)}. Known sources: {', '.join(sorted(names))}. "
            "Run 'python -m bot.cli index sources' to see them all."
        )

    await writer.record_verdicts(store, candidates)
    removed = await _forget_vanished(store, names)
    for candidate in candidates:
        if candidate.verdict is Verdict.REJECTED:
            await writer.clear_documents(store, candidate.name)

    outcomes = []
    for candidate in candidates:
        if not candidate.admitted or (only and candidate.name not in only):
            continue
        progress.source_started(candidate.name)
        outcome = await refresh_local(store, candidate, force=force, progress=progress)
        progress.source_finished(outcome)
        outcomes.append(outcome)
    return RefreshReport(
        tuple(candidates), tuple(outcomes), tuple(removed), time.perf_counter() - started
    )


async def _forget_vanished(store: Store, names: set[str]) -> list[str]:
    """Local sources no longer configured leave the index with everything they held."""
    gone = [s.name for s in await catalog.sources(store) if s.origin == "local"]
    gone = [n for n in gone if n not in names]
    await writer.drop_sources(store, gone)
    return gone


def _open_snapshot(candidate: Candidate) -> Snapshot:
    if candidate.path is None:
        raise SourceError(f"{candidate.name} has no path on disk")
    if is_repository(candidate.path):
        return GitSnapshot(candidate.path)
    return DirectorySnapshot(candidate.path)


async def refresh_local(
    store: Store, candidate: Candidate, *, force: bool, progress: Progress
) -> SourceOutcome:
    """Re-index one local repository if its commit moved (or ``force``)."""
    started = time.perf_counter()
    name = candidate.name
    snapshot: Snapshot | None = None
    try:
        snapshot = await asyncio.to_thread(_open_snapshot, candidate)
        state = await catalog.source(store, name)
        unchanged = (
            state is not None
            and state.branch_commit == snapshot.commit
            and state.corpus_version == CORPUS_VERSION
            and state.indexed_at is not None
        )
        if unchanged and not force:
            await writer.mark_fresh(store, name)
            return SourceOutcome(name, "unchanged", seconds=time.perf_counter() - started)
        existing = await catalog.fingerprints(store, name)
        plan = await asyncio.to_thread(
            plan_source,
            name,
            snapshot,
            None,
            None,
            existing,
            force=force,
            on_file=lambda path: progress.file_read(name, path),
        )
        await writer.write_source(store, plan)
    except (SourceError, OSError) as exc:
        message = str(exc)
        log.warning("refresh of %s failed: %s", name, message)
        await writer.record_failure(store, name, message)
        return SourceOutcome(name, "failed", seconds=time.perf_counter() - started, error=message)
    finally:
        if snapshot is not None:
            snapshot.close()
    return SourceOutcome(
        name,
        "indexed",
        written=len(plan.fresh),
        kept=len(plan.kept),
        chunks=sum(len(d.chunks) for d in plan.fresh),
        skipped=len(plan.skipped),
        seconds=time.perf_counter() - started,
    )
