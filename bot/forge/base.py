"""The narrow view of a forge that discovery and the refresh need, and the facts it returns.

Discovery asks a forge for every project of a group, one file at a ref and whether a docs site
answers; the refresh then asks for the latest release of the sources it fetches, many at once.
Whether Pages is switched on needs no question: the listing carries it. ``bot.forge.gitlab``
answers over GitLab's REST API; tests answer with a fake *server*, so this Protocol has one real
implementation and no mock.

A fact that could not be established is returned as ``Unknown`` with the reason, never as a
negative: "the file could not be read" and "the file is not there" lead to different verdicts
(unresolved against rejected).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Unknown:
    """A fact that could not be checked this run, and why."""

    reason: str


@dataclass(frozen=True, slots=True)
class Project:
    """One project as the forge lists it: the facts the predicate and the fetch need."""

    id: int
    path: str  # path_with_namespace, what sources.exclude and the feed name
    namespace: str  # namespace.full_path
    visibility: str
    archived: bool
    empty_repo: bool
    default_branch: str | None
    http_url: str | None
    ssh_url: str | None
    web_url: str
    pages_access_level: str | None
    namespace_id: int | None = None  # the numeric id of ``namespace``, when listed

    @property
    def branch(self) -> str:
        """The branch to clone: the forge's default branch, or ``main`` when it names none."""
        return self.default_branch or "main"


@dataclass(frozen=True, slots=True)
class SiteCheck:
    """What asking a docs site over HTTP showed.

    ``answered``: whether it answered as a public site does; ``detail``: what it answered, in
    words (``"HTTP 200"``, ``"HTTP 404"``, ``"it sends visitors to the sign-in page"``);
    ``seen_at``: when it was last seen answering (ISO 8601, UTC), set when an earlier answer is
    reused instead of asking again.
    """

    answered: bool
    detail: str
    seen_at: str | None = None


@dataclass(frozen=True, slots=True)
class Release:
    """The forge's latest release: its tag (the commit comes from the repository's refs)."""

    tag: str


class NoRelease:
    """The forge answered that the project has no release."""

    def __repr__(self) -> str:
        return "NoRelease()"


NO_RELEASE = NoRelease()


class Forge(Protocol):
    """What discovery and the refresh need from a forge."""

    async def group_projects(self, group: str) -> list[Project]:
        """Each project of ``group`` and its subgroups once, projects shared into it excluded.

        Raises:
            RateLimited: the forge asked us to slow down.
            ForgeError: the listing could not be read.
        """
        ...

    async def project(self, path: str) -> Project | Unknown | None:
        """One project by full path, wherever it lives: ``None`` when the forge has no such one.

        Raises:
            RateLimited: the forge asked us to slow down.
        """
        ...

    async def read_file(self, project: Project, path: str, ref: str) -> bytes | Unknown | None:
        """The file at ``ref``: its bytes, ``None`` when absent, ``Unknown`` when unreadable.

        Raises:
            RateLimited: the forge asked us to slow down.
        """
        ...

    async def latest_releases(
        self, group: str, projects: Sequence[Project]
    ) -> Mapping[int, Release | NoRelease | Unknown]:
        """The forge's own latest release (not the newest tag) of each project, by project id.

        Every project given gets an answer; the forge may use as few requests as it can.

        Raises:
            RateLimited: the forge asked us to slow down.
        """
        ...

    async def site_answers(self, url: str) -> SiteCheck | Unknown:
        """Whether the published site answers over HTTP (no credential is ever sent)."""
        ...

    async def read_feed(self, url: str) -> bytes | Unknown:
        """The estate feed's raw bytes (fetched anonymously)."""
        ...
