"""The GitLab part of the refresh: discovery, the lifecycle of clones, and fetch-then-index.

``bot.refresh.refresh`` drives it; this module only knows what is particular to a forge.

* **Discovery** lists the group and decides every verdict (``bot.forge.discovery``).
* **Lifecycle**: once a run has listed the group, a source that no longer qualifies loses its
  clone and its documents; one whose verdict is unresolved keeps both; a source the group no
  longer lists is rejected (clause ``group``) and cleaned up the same way. A source the group
  lists under its own path in other letter case (a case-only rename: GitLab's paths ignore
  case) is one source under the new spelling, and the old one leaves the index with its
  documents and clone. A run whose listing failed changes none of this.
* **Releases**: the latest release of every source to refresh is asked for at once
  (``Forge.latest_releases``), which GitLab answers from the group's release listing in a page
  or a few rather than one request per source.
* **Fetch, then index**: up to two repositories are fetched at once, in threads; each fetched
  source is then indexed and written on its own, one at a time, in its own transaction. A
  clone found damaged as it is read is cloned again within the same two: a transfer like any
  other, it waits for a fetch to finish rather than make a third at once. A
  source whose branch head and release commit are what is already indexed is not fetched and
  its tree is not read.
* **A release that cannot be looked up** holds the source's code exactly as it is indexed
  (none at all on its first index) while its docs are refreshed: the branch could hold code
  no release ships yet.
* A rate limit stops the run (``RateLimited``) with whatever was written so far kept.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Collection, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from bot.clones import Clones, CloneState, RemoteRefs
from bot.config import Config
from bot.corpus.chunk import Kind
from bot.corpus.documents import CORPUS_VERSION
from bot.errors import DamagedRepository, RateLimited, SourceError
from bot.forge.base import Forge, NoRelease, Project, Release, Unknown
from bot.forge.candidates import Candidate, Verdict
from bot.forge.discovery import (
    Discovery,
    ForgeCandidate,
    Memory,
    SiteConfig,
    SiteSeen,
    discover,
)
from bot.forge.gitlab import GitLabForge
from bot.forge.local import is_repository
from bot.forge.predicate import Policy, named_by
from bot.git_access import LET_READ
from bot.git_transport import GitAccess
from bot.index import catalog, writer
from bot.index.catalog import SourceState
from bot.index.store import Store
from bot.indexing import HeldCode, ReleaseCode, Scope, plan_source
from bot.outcomes import Progress
from bot.outcomes import SourceOutcome as _Outcome
from bot.snapshot import GitSnapshot

log = logging.getLogger(__name__)

FETCH_CONCURRENCY = 2  # repositories fetched at once (indexing is always one at a time)
# Seconds a stopping run gives git to go after SIGTERM before it kills what is left.
GIT_STOP_GRACE = 2.0
T = TypeVar("T")
_KEPT = "nothing of it was read this run and its last index keeps answering"


@dataclass(frozen=True, slots=True)
class _Fetched:
    """What the fetch step learnt about one source, for the indexing step."""

    fc: ForgeCandidate
    state: SourceState | None
    head: str
    release_tag: str | None  # the release code is read at; None: the branch, or held
    held: HeldCode | None  # the release could not be looked up: code stays as indexed
    release_error: str | None
    clone: CloneState | None  # None: nothing moved, nothing was fetched


class GitLabSources:
    """One run's GitLab sources: open with ``async with``, then discover, settle, refresh."""

    def __init__(self, config: Config, store: Store, *, forge: Forge | None = None) -> None:
        if not config.gitlab_group or not config.feed_url:
            raise ValueError("GitLabSources needs gitlab.group and index.feed.url")
        self.config = config
        self.store = store
        self.group: str = config.gitlab_group
        self.feed_url: str = config.feed_url
        self.access = GitAccess(
            config.gitlab_api_url,
            config.secrets.gitlab_token,
            config.ssh_key,
            config.ssh_known_hosts,
        )
        self.clones = Clones(config.clones_dir, self.access.env())
        self._given_forge = forge
        self.forge: Forge = forge  # type: ignore[assignment]  # set in __aenter__
        self._stack = AsyncExitStack()
        self.discovery = Discovery(())
        self.errors: list[str] = []
        # Known sources the group now lists spelt in other letter case: old name -> new name.
        self.respelled: dict[str, str] = {}
        self._threads: set[asyncio.Future[Any]] = set()
        # The transfers from the forge this run makes at once: fetches, and clones made again.
        self._fetch_slots = asyncio.Semaphore(FETCH_CONCURRENCY)

    async def __aenter__(self) -> GitLabSources:
        if self._given_forge is None:
            self.forge = await self._stack.enter_async_context(
                GitLabForge(self.config.gitlab_api_url, self.config.secrets.gitlab_token)
            )
        try:
            await self._take_clones()
            await asyncio.to_thread(self.clones.prepare)
        except BaseException:
            self.clones.release()
            await self._stack.aclose()
            raise
        return self

    async def _take_clones(self) -> None:
        """Wait while another process holds the clones directory, up to ``clones.lock_wait``.

        The wait is on the event loop, not in a thread, so a stopping ``serve`` cancels it at
        once and no thread is left to take the lock after the run has gone.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.clones.lock_wait
        told = False
        while not self.clones.take():  # never blocks: the lock is asked for, not waited on
            if loop.time() >= deadline:
                raise self.clones.in_use()
            if not told:
                log.warning(
                    "another process is refreshing the clones in %s; waiting for it",
                    self.clones.root,
                )
                told = True
            await asyncio.sleep(0.2)  # flock has no way to tell a waiter it is free

    async def __aexit__(self, *exc_info: object) -> None:
        try:
            await self._end_git()
            await self._stack.aclose()
        finally:
            self.clones.release()

    async def _in_thread(self, call: Callable[[], T]) -> T:
        """Run a ``Clones`` call that talks to the forge in a thread the run keeps track of.

        A caller cancelled (the run is stopping) stops waiting at once; the thread goes on
        until ``_end_git`` has ended its git command.
        """
        work = asyncio.ensure_future(asyncio.to_thread(call))
        self._threads.add(work)
        work.add_done_callback(self._thread_done)
        return await asyncio.shield(work)

    def _thread_done(self, work: asyncio.Future[Any]) -> None:
        """Drop a finished thread's future, reading its outcome: a stopped run wants none of it."""
        self._threads.discard(work)
        if not work.cancelled():
            work.exception()  # read, so asyncio does not log it as never retrieved

    async def _end_git(self) -> None:
        """End the git commands still running (the run was stopped) and wait for their threads.

        A clone or fetch would otherwise hold the stop until it finished: minutes for a large
        repository or a stalled forge. SIGTERM first; SIGKILL to whatever is left after
        ``GIT_STOP_GRACE``. Waiting for the threads means a clone ended part-way is removed,
        and the directory is let go of only once nothing works in it.
        """
        working = {work for work in self._threads if not work.done()}
        if not working:
            return
        ended = self.clones.stop()
        log.info("the run is stopping: ended %d git commands talking to the forge", ended)
        _, left = await asyncio.wait(working, timeout=GIT_STOP_GRACE)
        if left:
            self.clones.stop(kill=True)
            await asyncio.wait(left)

    # -- discovery ---------------------------------------------------------------------------

    async def discover(self) -> list[Candidate]:
        """Decide every project's verdict; on a failed listing, return the last known ones.

        Raises:
            RateLimited: discovery was rate limited; no verdict was recorded.
        """
        known = [s for s in await catalog.sources(self.store) if s.origin == "gitlab"]
        remembered = {
            s.name: SiteConfig(s.site_commit, s.site_config, s.site_config_url)
            for s in known
            if s.site_commit is not None and s.site_config is not None
        }
        seen = {
            s.name: SiteSeen(s.site_seen_url, s.site_seen_commit, s.site_seen_at)
            for s in known
            if s.site_seen_url and s.site_seen_commit and s.site_seen_at
        }
        memory = Memory(remembered, seen, self.config.site_check_interval)
        policy = Policy(self.group, self.config.exclude, self.config.gitlab_siteless_subgroups)
        expected = [s.name for s in known if s.verdict != Verdict.REJECTED.value]
        self.discovery = await discover(
            self.forge, policy, self.feed_url, self._probe, memory, expected
        )
        if not self.discovery.complete:
            self.errors.append(
                f"GitLab discovery failed: {(self.discovery.error or '').rstrip('.')}. The "
                "previous verdicts, index and clones are kept."
            )
            return []
        if self.discovery.feed_error is not None:
            # Not fatal: the sources it decides stay unresolved and keep answering. But a run
            # that could not read the feed did not do its job, and whoever runs it must hear so.
            self.errors.append(
                f"The estate feed (index.feed.url) could not be used: "
                f"{self.discovery.feed_error}. The projects it decides are unresolved and keep "
                "their last index; fix the feed and run the build again."
            )
        candidates = [fc.candidate for fc in self.discovery.candidates]
        listed = {c.name for c in candidates}
        for state in known:
            if state.name in listed:
                continue
            # GitLab paths differ by more than letter case, so at most one is another spelling.
            if respelled := named_by(state.name, sorted(listed)):
                new = respelled[0]
                # The same project: rejecting the old spelling "renamed" would list it twice.
                log.info("%s is now %s in GitLab, in letter case only: one source", state.name, new)
                self.respelled[state.name] = new
                continue
            candidates.append(self._unlisted(state))
        return candidates

    def _unlisted(self, state: SourceState) -> Candidate:
        """The verdict of a known source the listing left out, saying what GitLab said of it."""
        reason = self.discovery.unconfirmed.get(state.name)
        moved_to = self.discovery.moved.get(state.name)
        if reason is not None:
            verdict, detail = (
                Verdict.UNRESOLVED,
                f"missing from the listing of {self.group}, and GitLab could not "
                f"confirm it is gone: {reason}",
            )
        elif moved_to is not None:
            verdict, detail = (
                Verdict.REJECTED,
                f"no longer at this path: GitLab says the project is now {moved_to} (renamed "
                "or moved), a source of its own under that name if it qualifies",
            )
        elif state.verdict == Verdict.REJECTED.value and state.clause == "group":
            # A source rejected is not asked for again, so what GitLab said then still stands.
            verdict, detail = Verdict.REJECTED, state.detail
        else:
            verdict, detail = (
                Verdict.REJECTED,
                f"no longer listed in {self.group} (deleted, moved out, or no longer "
                "visible to this token)",
            )
        return Candidate(
            state.name,
            "gitlab",
            state.location,
            verdict,
            "group",
            detail,
            web_url=state.web_url,
        )

    async def known_names(self) -> set[str]:
        """Every GitLab source the index knows, for checking ``--source`` after a failed run.

        An old spelling this run found respelled is not one: it is about to leave the index.
        """
        return {
            s.name
            for s in await catalog.sources(self.store)
            if s.origin == "gitlab" and s.name not in self.respelled
        }

    async def _probe(self, project: Project) -> RemoteRefs | Unknown:
        try:
            url = self.access.url_for(project)
            return await self._in_thread(partial(self.clones.ls_remote, url, project.branch))
        except RateLimited:
            raise
        except SourceError as exc:
            return Unknown(str(exc))

    async def remember(self) -> None:
        """Store each site config read this run, and where each site was seen answering.

        A source whose site was not seen answering this run (or not asked, or failed) forgets
        any earlier answer, so only an unbroken run of answers is ever trusted.
        """
        rows = [
            (fc.candidate.name, c.commit, c.path, c.site_url)
            for fc in self.discovery.candidates
            if (c := fc.site_config) is not None
        ]
        await writer.remember_site_configs(self.store, rows)
        seen: list[tuple[str, str | None, str | None, str | None]] = []
        for fc in self.discovery.candidates:
            if (site := fc.site_seen) is not None:
                seen.append((fc.candidate.name, site.url, site.commit, site.at))
            else:
                seen.append((fc.candidate.name, None, None, None))
        await writer.remember_sites_seen(self.store, seen)

    # -- lifecycle ---------------------------------------------------------------------------

    async def settle(
        self, candidates: Sequence[Candidate], forgotten: Collection[str]
    ) -> list[str]:
        """After a complete discovery: delete the clones of sources that no longer qualify.

        Documents of rejected sources are removed by the caller, for every origin alike. A
        respelled source's old name goes here, row, documents and clone: nothing stays to
        explain, since the project is listed under its new spelling. ``forgotten`` are the
        sources this run removed from the index. Returns the names whose clone was deleted.

        Only the clones of sources this index knows are deleted: the clones directory is
        shared by every configuration that leaves ``index.clones`` unset, and another one's
        clones are not this run's to judge.
        """
        if not self.discovery.complete:
            return []
        ours = (
            {c.name for c in candidates}
            | await self.known_names()
            | set(self.respelled)
            | set(forgotten)
        )
        await writer.drop_sources(self.store, sorted(self.respelled))
        keep = {c.name for c in candidates if c.verdict is not Verdict.REJECTED}
        gone = sorted((self.clones.names() & ours) - keep)
        deleted, problems = await asyncio.to_thread(self.clones.remove_each, gone)
        self.errors += problems
        return deleted

    # -- fetch, then index -------------------------------------------------------------------

    async def refresh(
        self,
        *,
        only: Collection[str],
        due: Collection[str] | None,
        force: bool,
        progress: Progress,
    ) -> list[_Outcome]:
        """Fetch the admitted sources (two at a time) and index each as it arrives.

        Raises:
            RateLimited: the forge rate-limited the release lookups; the run stops there.
        """
        chosen = [
            fc
            for fc in self.discovery.candidates
            if fc.candidate.admitted
            and (not only or fc.candidate.name in only)
            and (due is None or fc.candidate.name in due)
        ]
        releases = await self.forge.latest_releases(self.group, [fc.project for fc in chosen])
        outcomes: list[_Outcome] = []

        async def fetch(fc: ForgeCandidate) -> _Fetched | _Outcome:
            release = releases.get(fc.project.id, Unknown("no release lookup was made"))
            async with self._fetch_slots:
                return await self._fetch(fc, release, force=force)

        tasks = [asyncio.create_task(fetch(fc)) for fc in chosen]
        try:
            for next_done in asyncio.as_completed(tasks):
                fetched = await next_done
                outcomes.append(await self._index(fetched, force=force, progress=progress))
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        return outcomes

    async def _fetch(
        self, fc: ForgeCandidate, release: Release | NoRelease | Unknown, *, force: bool
    ) -> _Fetched | _Outcome:
        started = time.perf_counter()
        name, project = fc.candidate.name, fc.project
        try:
            url = self.access.url_for(project)
            refs = fc.refs
            if refs is None:  # discovery could not probe it; try once more
                refs = await self._in_thread(partial(self.clones.ls_remote, url, project.branch))
            if refs.head is None:
                raise SourceError(f"the default branch {project.branch} is not in the repository")
            state = await catalog.source(self.store, name)
            tag, commit, problem = _resolve_release(release, refs)
            held, error = None, None
            if problem is not None:
                indexed = await catalog.paths_of_kind(self.store, name, Kind.CODE)
                held = HeldCode(*_indexed_release(state), indexed)
                error = _held_back(problem, held)
            expected_site = fc.site_url if fc.decision.site else None
            unchanged = (
                not force
                and state is not None
                and state.indexed_at is not None
                and state.corpus_version == CORPUS_VERSION
                and state.branch_commit == refs.head
                and state.release_commit == (held.commit if held else commit)
                and state.site_url == expected_site
                # Code held back by a failed lookup is read once the lookup succeeds again,
                # even at the same commits: it may be missing, or cut by an older version.
                and (held is not None or state.release_error is None)
            )
            clone = None
            if not unchanged:
                clone = await self._in_thread(
                    partial(
                        self.clones.sync,
                        name,
                        url,
                        project.branch,
                        tag,
                        commit,
                        keep_tags=held is not None,
                    )
                )
            return _Fetched(fc, state, refs.head, tag, held, error, clone)
        except RateLimited:
            raise
        except (SourceError, OSError) as exc:
            return _Outcome(name, "failed", seconds=time.perf_counter() - started, error=str(exc))

    async def _index(
        self, fetched: _Fetched | _Outcome, *, force: bool, progress: Progress
    ) -> _Outcome:
        if isinstance(fetched, _Outcome):
            progress.source_started(fetched.name)
            await writer.record_failure(self.store, fetched.name, fetched.error or "failed")
            progress.source_finished(fetched)
            return fetched
        name = fetched.fc.candidate.name
        progress.source_started(name)
        started = time.perf_counter()
        project = fetched.fc.project
        if fetched.clone is None:
            await writer.mark_fresh(
                self.store,
                name,
                default_branch=project.branch,
                release_error=fetched.release_error,
            )
            outcome = _Outcome(name, "unchanged", seconds=time.perf_counter() - started)
            progress.source_finished(outcome)
            return outcome
        try:
            outcome = await self._write(fetched, force=force, progress=progress)
        except (SourceError, OSError) as exc:
            log.warning("refresh of %s failed: %s", name, exc)
            await writer.record_failure(self.store, name, str(exc))
            outcome = _Outcome(name, "failed", error=str(exc))
        outcome = replace(outcome, seconds=time.perf_counter() - started)
        progress.source_finished(outcome)
        return outcome

    async def _write(self, fetched: _Fetched, *, force: bool, progress: Progress) -> _Outcome:
        assert fetched.clone is not None
        name = fetched.fc.candidate.name
        site = fetched.fc.decision.site
        scope = Scope(site=site, other_markdown=site and self.config.markdown_scope == "all")
        existing = await catalog.fingerprints(self.store, name)

        def plan(clone: CloneState) -> writer.SourcePlan:
            _check_clone(name, clone.path)
            branch = GitSnapshot(clone.path, clone.branch_commit, clone_of=name)
            code: ReleaseCode | HeldCode | None = fetched.held
            if fetched.release_tag and clone.release_commit:
                code = ReleaseCode(
                    GitSnapshot(clone.path, clone.release_commit, clone_of=name),
                    fetched.release_tag,
                )
            try:
                return plan_source(
                    name,
                    branch,
                    code,
                    existing,
                    scope=scope,
                    force=force,
                    on_file=lambda path: progress.file_read(name, path),
                )
            finally:
                branch.close()
                if isinstance(code, ReleaseCode):
                    code.snapshot.close()

        clone = fetched.clone
        try:
            source_plan = await asyncio.to_thread(plan, clone)
        except DamagedRepository as damage:
            # The clone is the bot's own: cloned again, it is whole, where a fetch would stop
            # at the damage and every build after would fail the same way.
            clone = await self._clone_again(fetched, damage)
            source_plan = await asyncio.to_thread(plan, clone)
        source_plan = replace(
            source_plan,
            default_branch=fetched.fc.project.branch,
            release_error=fetched.release_error,
        )
        await writer.write_source(self.store, source_plan)
        log.info("indexed %s (%s)", name, clone.action)
        return _Outcome.indexed(source_plan)

    async def _clone_again(self, fetched: _Fetched, damage: DamagedRepository) -> CloneState:
        """Clone a source whose clone was found damaged once read, in place of that clone.

        Raises:
            SourceError: the fresh clone failed too, or could not be put in the damaged one's
                place (a full disk): what was wrong, and why it failed; the damaged clone is
                kept as it was.
            RateLimited: the forge rate-limited git; the run stops.
        """
        name, project = fetched.fc.candidate.name, fetched.fc.project
        log.warning("%s; cloning %s again", damage.found, name)
        try:
            url = self.access.url_for(project)
            clone_again = partial(
                self.clones.clone_again,
                name,
                url,
                project.branch,
                fetched.release_tag,
                "it was damaged",
            )
            async with self._fetch_slots:
                return await self._in_thread(clone_again)
        except RateLimited:
            raise
        except (SourceError, OSError) as failed:
            log.warning("cloning %s again failed: %s", name, failed)
            raise SourceError(
                f"{damage.found}, and cloning it again failed too ({str(failed).rstrip('.')}), "
                f"so {_KEPT}. The damaged clone is kept as it was; the next build clones it "
                "again"
            ) from None


def _check_clone(name: str, path: Path) -> None:
    """Fail a source whose clone went after its fetch, rather than read whatever is there now.

    Raises:
        SourceError: the clone is gone, replaced, or cannot be read; what to do.
    """
    try:
        if is_repository(path):
            return
    except OSError as exc:
        raise unreadable_clone(name, path, exc) from None
    raise SourceError(
        f"the clone of {name} at {path} went away after it was fetched (removed or replaced "
        f"while the build ran), so {_KEPT}; the next build clones it again"
    )


def unreadable_clone(name: str, path: Path, exc: OSError) -> SourceError:
    """The error of a clone the system will not let the build read, in the system's words.

    Some errors carry a message and no error number, so no ``strerror``: the message is said.
    """
    return SourceError(
        f"the clone of {name} at {path} cannot be read any more ({exc.strerror or exc}), so "
        f"{_KEPT}. {LET_READ.capitalize()}, or remove it and the next build "
        "clones it again"
    )


def _resolve_release(
    release: Release | NoRelease | Unknown, refs: RemoteRefs
) -> tuple[str | None, str | None, str | None]:
    """``(tag, commit, problem)``: the release code is read at, or why it cannot be read.

    With a problem (the release cannot be looked up, for any reason but "there is none"), no
    code is read at all: the branch may hold code no release ships yet.
    """
    if isinstance(release, NoRelease):
        return None, None, None
    if isinstance(release, Release):
        commit = refs.tags.get(release.tag)
        if commit is not None:
            return release.tag, commit, None
        return None, None, f"the latest release's tag {release.tag} is not in the repository"
    return None, None, f"the latest release could not be looked up: {release.reason}"


def _indexed_release(state: SourceState | None) -> tuple[str | None, str | None]:
    """The release a source's indexed code came from (``None``s: the branch, or no code)."""
    if state is None or state.indexed_at is None:
        return None, None
    return state.release_tag, state.release_commit


def _held_back(problem: str, held: HeldCode) -> str:
    """The release error a source records: what failed, what happens to its code, what to do."""
    if not held.paths:
        where = (
            "its code is left out of the index, so that no unreleased code gets in; its docs "
            "are indexed"
        )
    elif held.tag:
        where = f"its code stays at release {held.tag}, as last indexed"
    else:
        where = "its code stays as it was last indexed"
    return (
        f"{problem}. Until the release can be looked up, {where}. Run the build again once "
        "GitLab can say which release is the latest"
    )
