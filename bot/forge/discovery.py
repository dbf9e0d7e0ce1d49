"""Discovery: list the group, gather the facts the predicate needs, and decide every verdict.

Facts are gathered in the order the predicate needs them and no further: the listing settles
exclusion, the feed, the group, visibility, archiving and emptiness for every project at once,
and only a project that passes all of those is asked anything about itself (its refs, its site
config, its site). Whether Pages is on comes with the listing too. An excluded or unlisted
project therefore never sees a request about its files and is never probed or cloned.

A site config read at a commit cannot change, so the one read at the branch head the previous
run saw is reused while the head has not moved: an unchanged source costs no file read.

A site that answered is not asked again while three things hold: it answered within
``index.site_check_interval``, at the same URL, and the branch it is built from has not moved
since. Everything else that decides a verdict (visibility, the group, the feed, archiving,
Pages being on) is read live on every run; only "the deployed site still answers" is carried
over, for a bounded time, and the admitting clause says when it was last seen. A site that
failed or could not be checked is asked again on the next run.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Collection, Coroutine, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from bot.clones import RemoteRefs
from bot.corpus.site import CONFIG_CANDIDATES, parse_config
from bot.errors import ForgeError, RateLimited
from bot.forge.base import Forge, Project, SiteCheck, Unknown
from bot.forge.candidates import Candidate
from bot.forge.feed import parse_feed
from bot.forge.predicate import (
    PAGES_ON,
    Decision,
    Policy,
    SiteFacts,
    decide,
    named_by,
    same_path,
    screen,
)

log = logging.getLogger(__name__)
T = TypeVar("T")

# How many projects have their facts gathered at once: enough to hide latency, few enough to
# stay far from the forge's per-minute quotas.
FACT_CONCURRENCY = 8

RefProbe = Callable[[Project], Awaitable["RemoteRefs | Unknown"]]


@dataclass(frozen=True, slots=True)
class SiteConfig:
    """A site config as read at one commit: its path (``""``: none) and its ``site_url``."""

    commit: str
    path: str
    site_url: str | None


@dataclass(frozen=True, slots=True)
class SiteSeen:
    """A docs site seen answering: at which URL, at which branch head, and when (ISO 8601)."""

    url: str
    commit: str
    at: str


@dataclass(frozen=True, slots=True)
class Memory:
    """What earlier runs learnt that this one may reuse, by source name.

    ``configs``: the site config read at a commit; ``seen``: the site last seen answering;
    ``site_check_interval``: how long a site seen answering is trusted without asking (``0``:
    ask on every run); ``now``: the moment of this run.
    """

    configs: Mapping[str, SiteConfig] = field(default_factory=dict)
    seen: Mapping[str, SiteSeen] = field(default_factory=dict)
    site_check_interval: float = 0.0
    now: datetime = field(default_factory=lambda: datetime.now(UTC))

    def config_of(self, name: str) -> SiteConfig | None:
        """The site config an earlier run read of ``name``, under any spelling of its path."""
        return _remembered(self.configs, name)

    def still_answering(self, name: str, url: str, head: str | None) -> SiteSeen | None:
        """The earlier answer of ``name``'s site, if it may stand for this run's."""
        seen = _remembered(self.seen, name)
        if seen is None or head is None or self.site_check_interval <= 0:
            return None
        if seen.url != url or seen.commit != head:
            return None
        try:
            age = (self.now - datetime.fromisoformat(seen.at)).total_seconds()
        except (TypeError, ValueError):  # unreadable, or without a time zone
            return None
        return seen if 0 <= age < self.site_check_interval else None


def _remembered(memory: Mapping[str, T], name: str) -> T | None:
    """What ``memory`` holds of ``name``, under its own spelling or one differing in case alone.

    GitLab's paths ignore case, so a project renamed in case alone is remembered under its old
    spelling until this run records the new one; read again, it would say the same. The exact
    spelling wins; of several others none is surely it, so nothing is reused.
    """
    names = named_by(name, memory)
    return memory[names[0]] if len(names) == 1 else None


@dataclass(frozen=True, slots=True)
class ForgeCandidate:
    """A forge project, its verdict, and what discovery learnt that the fetch can reuse."""

    candidate: Candidate
    project: Project
    decision: Decision
    refs: RemoteRefs | None = None
    site_url: str | None = None
    site_config: SiteConfig | None = None  # to remember for the next run
    site_seen: SiteSeen | None = None  # likewise: the site seen answering, if it was


@dataclass(frozen=True, slots=True)
class Discovery:
    """One discovery run: a candidate per listed project, or why the listing failed.

    ``unconfirmed``: sources the listing left out whose absence GitLab could not confirm this
    run, by name, with the reason. ``moved``: sources the listing left out that GitLab names
    under another path now (renamed or moved), by old name, with the new path.
    """

    candidates: tuple[ForgeCandidate, ...]
    error: str | None = None
    feed_error: str | None = None  # why the feed could not be used; its verdicts are unresolved
    unconfirmed: Mapping[str, str] = field(default_factory=dict)
    moved: Mapping[str, str] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """Whether the group was listed, so absences and rejections can be acted on."""
        return self.error is None


def to_candidate(project: Project, decision: Decision) -> Candidate:
    """The stored form of a forge verdict; a source is named by its ``path_with_namespace``."""
    return Candidate(
        name=project.path,
        origin="gitlab",
        location=project.web_url or project.path,
        verdict=decision.verdict,
        clause=decision.clause,
        detail=decision.detail,
        web_url=project.web_url or None,
    )


async def discover(
    forge: Forge,
    policy: Policy,
    feed_url: str,
    probe: RefProbe,
    memory: Memory,
    expected: Collection[str] = (),
) -> Discovery:
    """List ``policy.group`` and decide every project's verdict.

    The listing is paged by offset, so a project deleted or moved out while it is read shifts
    a later one onto a page already read, and no page returns it. Each of ``expected`` (the
    sources earlier runs admitted or left unresolved) that the listing leaves out is therefore
    asked for by its path: one GitLab still has in the group is decided as if listed, one it no
    longer has is left out (the caller rejects it), and one it cannot answer for is
    ``unconfirmed``. GitLab answers an old path with the project under its new one, which is
    ``moved``: the caller rejects the old name saying where it went.

    Args:
        forge: the forge to ask.
        policy: group, exclusions and siteless subgroups.
        feed_url: the estate feed's URL.
        probe: reads a project's branch head and tags from its repository.
        memory: the site configs and site answers earlier runs saw.
        expected: sources that must be confirmed gone before the listing's silence counts.

    Raises:
        RateLimited: the forge rate-limited discovery; nothing was decided.
    """
    feed_raw = await forge.read_feed(feed_url)
    feed = parse_feed(feed_raw) if isinstance(feed_raw, bytes) else feed_raw
    try:
        projects = await forge.group_projects(policy.group)
    except RateLimited:
        raise
    except ForgeError as exc:
        log.warning("listing %s failed: %s", policy.group, exc)
        return Discovery((), error=str(exc))

    gate = asyncio.Semaphore(FACT_CONCURRENCY)
    unconfirmed: dict[str, str] = {}
    moved: dict[str, str] = {}
    missing = [n for n in expected if not any(same_path(n, p.path) for p in projects)]

    async def confirm(name: str) -> Project | None:
        async with gate:
            found = await forge.project(name)
        if isinstance(found, Unknown):
            unconfirmed[name] = found.reason
            return None
        if found is None:
            return None
        if not same_path(found.path, name):
            moved[name] = found.path  # listed, or not, under that path: decided there
            return None
        log.info("%s was missing from the listing of %s but is still there", name, policy.group)
        return found

    if missing:
        found = await _all(confirm(n) for n in missing)
        projects = [*projects, *(p for p in found if p is not None)]

    async def one(project: Project) -> ForgeCandidate:
        early = screen(project, policy, feed)
        if early is not None:
            return ForgeCandidate(to_candidate(project, early), project, early)
        async with gate:
            return await _with_site(forge, policy, feed, probe, project, memory)

    candidates = await _all(one(p) for p in projects)
    feed_error = feed.reason if isinstance(feed, Unknown) else None
    return Discovery(tuple(candidates), feed_error=feed_error, unconfirmed=unconfirmed, moved=moved)


async def _all(work: Iterable[Coroutine[Any, Any, T]]) -> list[T]:
    """Run ``work`` concurrently and return the results in order.

    A TaskGroup cancels the others at the first rate limit instead of leaving them running,
    and the rate limit is raised as itself, not inside an exception group.
    """
    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(w) for w in work]
    except* RateLimited as caught:
        raise caught.exceptions[0] from None
    return [t.result() for t in tasks]


async def _with_site(
    forge: Forge,
    policy: Policy,
    feed: frozenset[str] | Unknown,
    probe: RefProbe,
    project: Project,
    memory: Memory,
) -> ForgeCandidate:
    refs = await probe(project)
    head = refs.head if isinstance(refs, RemoteRefs) else None
    known = memory.config_of(project.path)
    config: SiteConfig | Unknown
    if head is not None and known is not None and known.commit == head:
        config = known
    else:
        config = await read_site_config(forge, project, head or project.branch)
    facts = await site_facts(forge, project, config, memory, head)
    decision = decide(project, policy, feed, facts)
    seen = None
    if isinstance(facts.answers, SiteCheck) and facts.answers.answered and facts.site_url and head:
        at = facts.answers.seen_at or memory.now.isoformat(timespec="seconds")
        seen = SiteSeen(facts.site_url, head, at)
    return ForgeCandidate(
        to_candidate(project, decision),
        project,
        decision,
        refs=refs if isinstance(refs, RemoteRefs) else None,
        site_url=facts.site_url,
        site_config=config if isinstance(config, SiteConfig) and head else None,
        site_seen=seen,
    )


async def read_site_config(forge: Forge, project: Project, ref: str) -> SiteConfig | Unknown:
    """The first site config zensical would read, at ``ref``, through the forge's API."""
    for path in CONFIG_CANDIDATES:
        content = await forge.read_file(project, path, ref)
        if isinstance(content, Unknown):
            return content
        if content is None:
            continue
        try:
            layout = parse_config(path, content.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            return SiteConfig(ref, path, None)  # there, but unusable: it names no site
        return SiteConfig(ref, path, layout.site_url)
    return SiteConfig(ref, "", None)


async def site_facts(
    forge: Forge,
    project: Project,
    config: SiteConfig | Unknown,
    memory: Memory,
    head: str | None,
) -> SiteFacts:
    """Ask the site itself only when the config and the listing make it worth it.

    Args:
        forge: asks the site over HTTP.
        project: the project as listed (its ``pages_access_level`` says whether Pages is on).
        config: the site config at the branch head.
        memory: holds the site's earlier answer, which may stand for this run's.
        head: the branch head this run saw (``None``: unknown, so nothing is reused).
    """
    if isinstance(config, Unknown):
        return SiteFacts(config=config)
    if not config.path:
        return SiteFacts(config=None)
    if not config.site_url or config.site_url.split("://", 1)[0] not in ("http", "https"):
        return SiteFacts(config=config.path)
    if project.pages_access_level not in PAGES_ON:
        return SiteFacts(config.path, config.site_url)
    earlier = memory.still_answering(project.path, config.site_url, head)
    if earlier is not None:
        return SiteFacts(config.path, config.site_url, SiteCheck(True, "", seen_at=earlier.at))
    answers = await forge.site_answers(config.site_url)
    return SiteFacts(config.path, config.site_url, answers)
