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
from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bot.clones import Clones
from bot.config import Config
from bot.corpus.documents import CORPUS_VERSION
from bot.errors import SourceError, StoreError, UsageError
from bot.forge.base import Forge
from bot.forge.candidates import Candidate, Verdict
from bot.forge.local import changed_since_discovery, discover_local, is_repository
from bot.forge.predicate import named_by
from bot.forge_refresh import GitLabSources
from bot.index import catalog, writer
from bot.index.embedder import Embedder
from bot.index.embeddings import embed_pending
from bot.index.store import Store
from bot.indexing import DOCUMENTATION_ONLY, Scope, plan_source
from bot.outcomes import Progress, QuietProgress, SourceOutcome
from bot.snapshot import DirectorySnapshot, GitSnapshot, Snapshot

__all__ = ["Progress", "QuietProgress", "RefreshReport", "SourceOutcome", "refresh"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RefreshReport:
    """The outcome of one refresh run."""

    candidates: tuple[Candidate, ...]
    outcomes: tuple[SourceOutcome, ...]
    removed: tuple[str, ...]
    seconds: float
    errors: tuple[str, ...] = ()  # problems with no source to pin them on (a failed listing)
    clones_deleted: tuple[str, ...] = ()
    # GitLab sources renamed in letter case only, (old, new): one source, under the new name.
    respelled: tuple[tuple[str, str], ...] = ()

    @property
    def failed(self) -> list[SourceOutcome]:
        """The sources whose refresh failed."""
        return [o for o in self.outcomes if o.status == "failed"]

    @property
    def ok(self) -> bool:
        """Whether every source refreshed and discovery completed."""
        return not self.failed and not self.errors


async def refresh(
    config: Config,
    store: Store,
    *,
    only: Sequence[str] = (),
    force: bool = False,
    due_only: bool = False,
    progress: Progress | None = None,
    forge: Forge | None = None,
    embedder: Embedder | None = None,
) -> RefreshReport:
    """Discover every candidate, record its verdict, and re-index admitted sources that moved.

    Args:
        config: the validated configuration.
        store: the open index.
        only: refresh just these sources (by name, letter case aside when the exact spelling
            names none); verdicts are still recorded for all.
        force: re-read every file of every refreshed source, changed or not.
        due_only: refresh only sources past their refresh interval (the scheduler's way);
            discovery and verdicts still cover every source.
        progress: receives progress events.
        forge: the forge to discover from (default: GitLab at ``gitlab.url.api``).
        embedder: in hybrid mode, the model that embeds every chunk still without a vector
            once the sources are written (new or changed text only; all after a model change).

    Raises:
        UsageError: ``only`` names a source discovery did not find, one it rejected, or
            several that differ in letter case alone.
        SourceError: ``only`` names a source whose verdict is unresolved.
        RateLimited: the forge rate-limited the run; what was written before is kept.
    """
    started = time.perf_counter()
    progress = progress or QuietProgress()
    # Where each local source was indexed from, so that a repository whose own directory has
    # gone is the one reported missing, and no other path takes its name.
    indexed = {s.name: s.location for s in await catalog.sources(store) if s.origin == "local"}
    # Discovery reads directories and git refs: off the event loop, which serve shares.
    candidates = await asyncio.to_thread(
        discover_local,
        config.local_sources,
        config.exclude,
        embedded=config.embedded,
        indexed=indexed,
    )
    async with AsyncExitStack() as stack:
        gitlab: GitLabSources | None = None
        known_forge: set[str] = set()
        if config.gitlab_group:
            gitlab = await stack.enter_async_context(GitLabSources(config, store, forge=forge))
            candidates += await gitlab.discover()
            known_forge = await gitlab.known_names()
        await writer.record_verdicts(store, candidates)
        if gitlab is not None:
            # What a failed listing said outlives the build that printed it: index sources
            # shows it beside verdicts that are, for that group, the ones from before (or none).
            await writer.record_listing(store, gitlab.group, gitlab.discovery.error)
        # After the verdicts are recorded, so `index sources` shows the ones just decided (the
        # unknown name's message points there), and before anything is cleared or deleted, so a
        # refused run changes nothing else.
        only = _as_known(only, {c.name for c in candidates} | known_forge)
        _refuse_unindexable(only, candidates)
        removed = await _forget_vanished(store, config, candidates)
        for candidate in candidates:
            if candidate.verdict is Verdict.REJECTED:
                await writer.clear_documents(store, candidate.name)
        deleted: list[str] = []
        undeleted: list[str] = []  # clones that would not go: said, and the run goes on
        if gitlab is not None:
            await gitlab.remember()
            deleted = await gitlab.settle(candidates, removed)
        else:
            # No group any more: the clones of forge sources it used to hold go with them.
            leftover = Clones(config.clones_dir, {})
            deleted, undeleted = await asyncio.to_thread(leftover.remove_each, removed)

        due = await _due(config, store) if due_only else None
        outcomes = []
        scope = DOCUMENTATION_ONLY if config.embedded else Scope()
        for candidate in candidates:
            if candidate.origin != "local" or not candidate.admitted:
                continue
            if (only and candidate.name not in only) or (
                due is not None and candidate.name not in due
            ):
                continue
            progress.source_started(candidate.name)
            outcome = await refresh_local(
                store,
                candidate,
                scope=scope,
                force=force,
                progress=progress,
                embedded=config.embedded,
            )
            progress.source_finished(outcome)
            outcomes.append(outcome)
        if gitlab is not None:
            outcomes += await gitlab.refresh(only=only, due=due, force=force, progress=progress)
        errors = tuple(gitlab.errors) if gitlab is not None else tuple(undeleted)
        respelled = tuple(sorted(gitlab.respelled.items())) if gitlab is not None else ()
    if embedder is not None:
        errors += await _embed(store, embedder)
    await _compact(store)
    return RefreshReport(
        tuple(candidates),
        tuple(outcomes),
        tuple(removed),
        time.perf_counter() - started,
        errors=errors,
        clones_deleted=tuple(deleted),
        respelled=respelled,
    )


def _as_known(only: Sequence[str], names: set[str]) -> tuple[str, ...]:
    """The sources ``only`` names, each under the name it is known by.

    A name is matched as GitLab matches paths, letter case aside, so a source renamed in case
    alone, or named in other case, is still the one meant; the exact spelling wins.

    Raises:
        UsageError: a name matches no source, or several that differ in letter case alone.
    """
    known = sorted(names)
    matches = {given: named_by(given, known) for given in only}
    unknown = sorted(given for given, found in matches.items() if not found)
    if unknown:
        raise UsageError(
            f"No source called {', '.join(unknown)}. Known sources: {', '.join(known)}. "
            "Run 'python -m bot.cli index sources' to see them all."
        )
    several = [f"{given} ({', '.join(found)})" for given, found in matches.items() if found[1:]]
    if several:
        raise UsageError(
            f"More than one source is called {'; '.join(several)}, in letter case alone. "
            "Give the name spelled exactly as 'python -m bot.cli index sources' shows it."
        )
    return tuple(dict.fromkeys(found[0] for found in matches.values()))


def _refuse_unindexable(only: Sequence[str], candidates: Sequence[Candidate]) -> None:
    """Refuse a run asked to refresh a source that discovery did not admit.

    Such a source would be passed over without a word, and a run that did nothing would look
    like one that worked. A rejected source is a matter of the command or the configuration;
    an unresolved one could not be checked, which is something broken.

    Raises:
        UsageError: a named source is rejected.
        SourceError: a named source is unresolved.
    """
    named = [c for c in candidates if c.name in only and not c.admitted]
    if not named:
        return
    said = "; ".join(
        f"{c.name} {'is not indexed' if c.verdict is Verdict.REJECTED else 'cannot be refreshed'}"
        f": {c.verdict.value} ({c.clause}): {c.detail}"
        for c in named
    )
    message = (
        f"{said}. Nothing was refreshed. "
        "Run 'python -m bot.cli index sources' to see why each source is or is not indexed."
    )
    if any(c.verdict is Verdict.REJECTED for c in named):
        raise UsageError(message)
    raise SourceError(message)


async def _compact(store: Store) -> None:
    """Merge the search indexes; what was written is committed whether or not this works."""
    try:
        await writer.compact_search_indexes(store)
    except StoreError as exc:
        log.warning("%s Searches stay correct but slower until a later refresh merges them.", exc)


async def _embed(store: Store, embedder: Embedder) -> tuple[str, ...]:
    """Embed what the sources' writes left without a vector; a failure is reported, not raised.

    The sources are already written and searchable by their words when this runs, so a model
    that fails costs the vector half of the new chunks until the next build, not the refresh.
    """
    try:
        await embed_pending(store, embedder)
    except StoreError:
        raise
    except Exception as exc:  # the model is third-party code: any failure it raises lands here
        log.warning("embedding failed: %s", exc)
        return (
            f"embedding with {embedder.name} failed ({type(exc).__name__}: {exc}); the passages "
            "are searchable by their words, and the next index build embeds them",
        )
    return ()


async def _due(config: Config, store: Store) -> set[str]:
    """Sources past their own refresh interval (``sources.refresh_intervals``), or never done."""
    moment = datetime.now(UTC)
    return {
        s.name
        for s in await catalog.sources(store)
        if s.is_stale(config.interval_for(s.name), moment)
    }


async def _forget_vanished(
    store: Store, config: Config, candidates: Sequence[Candidate]
) -> list[str]:
    """Sources no longer configured leave the index with everything they held.

    Local sources go when their path is no longer configured, or is no longer in a configured
    directory that could be read: a directory that is missing this run (moved, or on a disk not
    mounted) proves nothing about the repositories it held, so they keep their last index.
    GitLab sources go only when no group is configured any more (a project that left the group
    is rejected, not forgotten).
    """
    found = {c.name for c in candidates}
    unreadable = [
        c.path for c in candidates if c.origin == "local" and c.verdict is Verdict.UNRESOLVED
    ]
    states = await catalog.sources(store)
    gone = [
        s.name
        for s in states
        if s.origin == "local"
        and s.name not in found
        and not any(p is not None and Path(s.location).is_relative_to(p) for p in unreadable)
    ]
    if not config.gitlab_group:
        gone += [s.name for s in states if s.origin == "gitlab"]
    await writer.drop_sources(store, gone)
    return gone


def _open_snapshot(candidate: Candidate, *, embedded: bool) -> Snapshot:
    """The snapshot a local source is read from, checked to be a repository still.

    Only the embedded default may be a plain directory (an unpacked copy); any other source
    that is no longer a repository fails, rather than being read as an empty directory.
    """
    if candidate.path is None:
        raise SourceError(f"{candidate.name} has no path on disk")
    if embedded and not is_repository(candidate.path):
        return DirectorySnapshot(candidate.path)
    if (problem := changed_since_discovery(candidate.path)) is not None:
        raise SourceError(problem)
    return GitSnapshot(candidate.path)


async def refresh_local(
    store: Store,
    candidate: Candidate,
    *,
    scope: Scope,
    force: bool,
    progress: Progress,
    embedded: bool = False,
) -> SourceOutcome:
    """Re-index one local repository if its commit moved (or ``force``).

    ``embedded``: the source is the embedded default, which may be a plain directory.
    """
    started = time.perf_counter()
    name = candidate.name
    snapshot: Snapshot | None = None
    try:
        snapshot = await asyncio.to_thread(_open_snapshot, candidate, embedded=embedded)
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
            existing,
            scope=scope,
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
    return SourceOutcome.indexed(plan, time.perf_counter() - started)
