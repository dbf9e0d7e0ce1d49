"""The narrow view of a forge that discovery needs, and the facts it returns.

Discovery asks four things of a forge: every project of a group, one file at a ref, the
latest release, and the state of a project's Pages. ``bot.forge.gitlab`` answers them over
GitLab's REST API; tests answer them with a fake *server*, so this Protocol has one real
implementation and no mock.

A fact that could not be established is returned as ``Unknown`` with the reason, never as a
negative: "the file could not be read" and "the file is not there" lead to different verdicts
(unresolved against rejected).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
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

    @property
    def branch(self) -> str:
        """The branch to clone: the forge's default branch, or ``main`` when it names none."""
        return self.default_branch or "main"


class Pages(StrEnum):
    """What the forge says about a project's Pages site."""

    PUBLISHED = "published"  # enabled, and (where the forge tells us) deployed
    DISABLED = "disabled"  # the Pages feature is off
    PRIVATE = "private"  # only project members may see the site
    NOT_DEPLOYED = "not_deployed"  # enabled, but nothing was ever deployed


@dataclass(frozen=True, slots=True)
class PagesState:
    """A project's Pages state, and where the answer came from (for ``index sources``)."""

    state: Pages
    how: str


@dataclass(frozen=True, slots=True)
class Release:
    """The forge's latest release: its tag (the commit comes from the repository's refs)."""

    tag: str
    commit: str | None = None


class NoRelease:
    """The forge answered that the project has no release."""

    def __repr__(self) -> str:
        return "NoRelease()"


NO_RELEASE = NoRelease()


class Forge(Protocol):
    """What discovery needs from a forge."""

    async def group_projects(self, group: str) -> list[Project]:
        """Every project of ``group`` and its subgroups, projects shared into it excluded.

        Raises:
            RateLimited: the forge asked us to slow down.
            ForgeError: the listing could not be read.
        """
        ...

    async def read_file(self, project: Project, path: str, ref: str) -> bytes | Unknown | None:
        """The file at ``ref``: its bytes, ``None`` when absent, ``Unknown`` when unreadable.

        Raises:
            RateLimited: the forge asked us to slow down.
        """
        ...

    async def latest_release(self, project: Project) -> Release | NoRelease | Unknown:
        """The forge's own latest release (not the newest tag).

        Raises:
            RateLimited: the forge asked us to slow down.
        """
        ...

    async def pages(self, project: Project) -> PagesState | Unknown:
        """Whether the project's Pages site is enabled (and, when visible, deployed).

        Raises:
            RateLimited: the forge asked us to slow down.
        """
        ...

    async def site_answers(self, url: str) -> bool | Unknown:
        """Whether the published site answers over HTTP (no credential is ever sent)."""
        ...

    async def read_feed(self, url: str) -> bytes | Unknown:
        """The estate feed's raw bytes (fetched anonymously)."""
        ...
