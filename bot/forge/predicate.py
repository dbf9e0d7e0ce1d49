"""The corpus predicate: which forge projects may be indexed, and the clause that decided.

Pure: every input is a fact already gathered, every output a ``Decision``. The clauses, in the
order they are tried:

=============  =====================================================================
``excluded``   named in ``sources.exclude`` (or inside a namespace it names). Tried
               first and absolute: no other fact can admit an excluded project.
``feed``       listed in the estate feed. The feed is canon.
``group``      its namespace is the configured group or one of its subgroups; a
               project shared into the group from elsewhere is not ours.
``visibility`` the forge reports it public.
``archived``   not archived.
``empty``      it has at least one commit.
``site``       it publishes a docs site: a ``zensical.toml`` or ``mkdocs.yml`` naming a
               ``site_url``, Pages enabled in the listing (``pages_access_level``
               ``enabled`` or ``public``), and the site answering over HTTP.
``siteless``   (admitting clause) no site, but it lives under one of
               ``gitlab.siteless_subgroups``: README, code and changelog only.
=============  =====================================================================

A clause that is known to fail rejects; a fact that could not be checked (rate limit, timeout,
5xx, unreadable file) makes the verdict *unresolved* instead, never *rejected*. A known failure
later in the order still rejects, because every clause must hold: a private project is rejected
even on a day the feed cannot be read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.forge.base import Project, SiteCheck, Unknown
from bot.forge.candidates import Verdict


@dataclass(frozen=True, slots=True)
class Policy:
    """The configured side of the predicate."""

    group: str
    exclude: tuple[str, ...] = ()
    siteless_subgroups: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SiteFacts:
    """What was learnt about a project's docs site, each fact possibly ``Unknown``.

    ``config`` is the site config's path (``None``: the repository has none); ``site_url`` the
    URL it names; ``answers`` what asking the site showed, ``None`` when it was not asked
    because an earlier fact already settled the matter. Whether Pages is on comes from the
    project listing itself (``Project.pages_access_level``).
    """

    config: str | Unknown | None
    site_url: str | None = None
    answers: SiteCheck | Unknown | None = None


@dataclass(frozen=True, slots=True)
class Decision:
    """A verdict, the clause that decided it, and what it means for indexing."""

    verdict: Verdict
    clause: str
    detail: str
    site: bool = False  # admitted with its docs site (else README, code and changelog only)


def _norm(path: str) -> str:
    return path.strip().strip("/").casefold()


def excluded_by(project_path: str, policy: Policy) -> str | None:
    """The ``sources.exclude`` entry that excludes ``project_path``, if any.

    An entry names a project path or a namespace (everything under it is excluded), either in
    full or relative to the configured group. Matching ignores case, as GitLab's paths do.
    """
    path = _norm(project_path)
    group = _norm(policy.group)
    for entry in policy.exclude:
        wanted = _norm(entry)
        if not wanted:
            continue
        for form in (wanted, f"{group}/{wanted}"):
            if path == form or path.startswith(form + "/"):
                return entry
    return None


def same_path(a: str, b: str) -> bool:
    """Whether two forge paths name the same group or project (case and outer slashes aside).

    Local repository names are compared the same way against ``sources.exclude``.
    """
    return _norm(a) == _norm(b)


def named_by(given: str, names: Iterable[str]) -> list[str]:
    """The names in ``names`` that ``given`` names, by the rule of ``same_path``.

    A name spelled exactly as given is the only one: two local repositories may be called
    apart by letter case alone on a case-sensitive filesystem, and the exact spelling picks
    one of them. Otherwise every name that differs in case alone is returned, in order, so a
    caller can tell an unknown name (none) from one it must ask to have spelled out (several).
    """
    names = list(names)
    if given in names:
        return [given]
    return [name for name in names if same_path(name, given)]


def in_group(namespace: str, group: str) -> bool:
    """Whether ``namespace`` is ``group`` or one of its subgroups."""
    ns, grp = _norm(namespace), _norm(group)
    return ns == grp or ns.startswith(grp + "/")


def siteless_subgroup(project: Project, policy: Policy) -> str | None:
    """The siteless subgroup the project lives in (family members included), if any."""
    ns, grp = _norm(project.namespace), _norm(policy.group)
    if not ns.startswith(grp + "/"):
        return None
    relative = ns[len(grp) + 1 :]
    for sub in policy.siteless_subgroups:
        wanted = _norm(sub)
        if wanted and (relative == wanted or relative.startswith(wanted + "/")):
            return sub
    return None


def _rejected(clause: str, detail: str) -> Decision:
    return Decision(Verdict.REJECTED, clause, detail)


def _unresolved(clause: str, detail: str) -> Decision:
    return Decision(Verdict.UNRESOLVED, clause, detail)


def screen(project: Project, policy: Policy, feed: frozenset[str] | Unknown) -> Decision | None:
    """Try every clause the project listing alone can settle.

    Returns ``None`` when all of them hold, so the site is worth looking at; otherwise the
    decision. Nothing here needs a request about the project itself, which is why an excluded
    or unlisted project is never read, probed or cloned.
    """
    entry = excluded_by(project.path, policy)
    if entry is not None:
        return _rejected("excluded", f"named in sources.exclude ({entry!r}); never indexed")

    unknown: Decision | None = None
    if isinstance(feed, Unknown):
        unknown = _unresolved("feed", f"the estate feed could not be read: {feed.reason}")
    elif _norm(project.path) not in feed:
        return _rejected("feed", "not listed in the estate feed (index.feed.url)")

    if not in_group(project.namespace, policy.group):
        return _rejected(
            "group",
            f"its namespace {project.namespace!r} is outside {policy.group!r} "
            "(a project shared into the group is not part of it)",
        )
    if project.visibility != "public":
        return _rejected("visibility", f"visibility is {project.visibility!r}, not public")
    if project.archived:
        return _rejected("archived", "the project is archived")
    if project.empty_repo:
        return _rejected("empty", "the repository has no commits")
    return unknown


def decide(
    project: Project,
    policy: Policy,
    feed: frozenset[str] | Unknown,
    site: SiteFacts | None,
) -> Decision:
    """The full verdict for one project.

    Args:
        project: the project as the forge listed it.
        policy: group, exclusions and siteless subgroups.
        feed: the paths the estate feed lists (case folded), or why it could not be read.
        site: the docs-site facts; ``None`` when they were not gathered (only sensible when
            ``screen`` already decides).
    """
    early = screen(project, policy, feed)
    if early is not None:
        return early
    if site is None:
        return _unresolved("site", "the docs site was not checked")

    subgroup = siteless_subgroup(project, policy)
    missing = _site_missing(project, site)
    if isinstance(missing, Decision):
        return missing
    if missing is None:
        return Decision(
            Verdict.ADMITTED,
            "site",
            f"publishes its docs site at {site.site_url} (config {site.config}, "
            f"pages_access_level {project.pages_access_level}; {_seen(site.answers)})",
            site=True,
        )
    if subgroup is not None:
        return Decision(
            Verdict.ADMITTED,
            "siteless",
            f"{missing}; admitted under {subgroup}/ for README, code and changelog only",
        )
    return _rejected(
        "site",
        f"{missing}, and it is not under a subgroup admitted without a site "
        f"({', '.join(s + '/' for s in policy.siteless_subgroups) or 'none configured'})",
    )


PAGES_ON = ("enabled", "public")
PAGES_OFF = {"disabled": "off", "private": "private"}


def _site_missing(project: Project, site: SiteFacts) -> str | Decision | None:
    """``None`` when the site is there; why it is not; or an unresolved decision."""
    if isinstance(site.config, Unknown):
        return _unresolved("site", f"the site config could not be read: {site.config.reason}")
    if site.config is None:
        return "no zensical.toml or mkdocs.yml"
    if not site.site_url:
        return f"{site.config} names no site_url"
    level = project.pages_access_level
    if level in PAGES_OFF:
        return f"its Pages are {PAGES_OFF[level]} (pages_access_level is {level})"
    if level not in PAGES_ON:
        return _unresolved(
            "site",
            "the project listing does not say whether Pages is on "
            f"(pages_access_level is {level!r})",
        )
    if isinstance(site.answers, Unknown):
        return _unresolved("site", f"the site could not be checked: {site.answers.reason}")
    if site.answers is None:
        return _unresolved("site", "the site was not checked over HTTP")
    if not site.answers.answered:
        return f"the site at {site.site_url} did not answer: {site.answers.detail}"
    return None


def _seen(check: SiteCheck | Unknown | None) -> str:
    """How the site's answer is known, for an admitting clause."""
    if isinstance(check, SiteCheck) and check.seen_at is not None:
        return (
            f"the site last answered at {check.seen_at}, within index.site_check_interval, "
            "and the branch has not moved since"
        )
    if isinstance(check, SiteCheck):
        return f"the site answered {check.detail}"
    return "the site was not checked"


def feed_paths(entries: Iterable[str]) -> frozenset[str]:
    """The feed's project paths, normalised for matching."""
    return frozenset(_norm(e) for e in entries if _norm(e))
