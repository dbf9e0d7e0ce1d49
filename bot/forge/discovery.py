"""Discovery: list the group, gather the facts the predicate needs, and decide every verdict.

Facts are gathered in the order the predicate needs them and no further: the listing settles
exclusion, the feed, the group, visibility, archiving and emptiness for every project at once,
and only a project that passes all of those is asked anything about itself (its refs, its site
config, its Pages, its site). An excluded or unlisted project therefore never sees a request
about its files and is never probed or cloned.

A site config read at a commit cannot change, so the one read at the branch head the previous
run saw is reused while the head has not moved: an unchanged source costs no file read.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from bot.clones import RemoteRefs
from bot.corpus.site import CONFIG_CANDIDATES, parse_config
from bot.errors import ForgeError, RateLimited
from bot.forge.base import Forge, Pages, Project, Unknown
from bot.forge.candidates import Candidate
from bot.forge.feed import parse_feed
from bot.forge.predicate import Decision, Policy, SiteFacts, decide, screen

log = logging.getLogger(__name__)

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
class ForgeCandidate:
    """A forge project, its verdict, and what discovery learnt that the fetch can reuse."""

    candidate: Candidate
    project: Project
    decision: Decision
    refs: RemoteRefs | None = None
    site_url: str | None = None
    site_config: SiteConfig | None = None  # to remember for the next run


@dataclass(frozen=True, slots=True)
class Discovery:
    """One discovery run: a candidate per listed project, or why the listing failed."""

    candidates: tuple[ForgeCandidate, ...]
    error: str | None = None

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
    remembered: Mapping[str, SiteConfig],
) -> Discovery:
    """List ``policy.group`` and decide every project's verdict.

    Args:
        forge: the forge to ask.
        policy: group, exclusions and siteless subgroups.
        feed_url: the estate feed's URL.
        probe: reads a project's branch head and tags from its repository.
        remembered: the site config each source had at the commit the last run saw.

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

    async def one(project: Project) -> ForgeCandidate:
        early = screen(project, policy, feed)
        if early is not None:
            return ForgeCandidate(to_candidate(project, early), project, early)
        async with gate:
            return await _with_site(forge, policy, feed, probe, project, remembered)

    # A TaskGroup cancels the others at the first rate limit instead of leaving them running.
    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(one(p)) for p in projects]
    except* RateLimited as caught:
        raise caught.exceptions[0] from None
    return Discovery(tuple(t.result() for t in tasks))


async def _with_site(
    forge: Forge,
    policy: Policy,
    feed: frozenset[str] | Unknown,
    probe: RefProbe,
    project: Project,
    remembered: Mapping[str, SiteConfig],
) -> ForgeCandidate:
    refs = await probe(project)
    head = refs.head if isinstance(refs, RemoteRefs) else None
    known = remembered.get(project.path)
    config: SiteConfig | Unknown
    if head is not None and known is not None and known.commit == head:
        config = known
    else:
        config = await read_site_config(forge, project, head or project.branch)
    facts = await site_facts(forge, project, config)
    decision = decide(project, policy, feed, facts)
    return ForgeCandidate(
        to_candidate(project, decision),
        project,
        decision,
        refs=refs if isinstance(refs, RemoteRefs) else None,
        site_url=facts.site_url,
        site_config=config if isinstance(config, SiteConfig) and head else None,
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


async def site_facts(forge: Forge, project: Project, config: SiteConfig | Unknown) -> SiteFacts:
    """Ask about Pages, then the site itself, only as far as the config makes it worth it."""
    if isinstance(config, Unknown):
        return SiteFacts(config=config)
    if not config.path:
        return SiteFacts(config=None)
    if not config.site_url or config.site_url.split("://", 1)[0] not in ("http", "https"):
        return SiteFacts(config=config.path)
    pages = await forge.pages(project)
    if isinstance(pages, Unknown) or pages.state is not Pages.PUBLISHED:
        return SiteFacts(config.path, config.site_url, pages)
    answers = await forge.site_answers(config.site_url)
    return SiteFacts(config.path, config.site_url, pages, answers)
