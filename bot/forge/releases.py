"""The latest release of many projects from one group-wide release listing (pure).

Looking up each project's latest release costs a request per source on every run, even when
nothing changed. GitLab can list the releases of a whole group instead, and the facts below make
that listing enough to answer for every project in it. They were read in GitLab's own sources
(``lib/api/releases.rb``, ``app/finders/releases/group_releases_finder.rb``,
``lib/api/entities/release.rb``, ``app/presenters/release_presenter.rb``):

* ``GET /groups/:id/releases`` exists from GitLab 15.0. Its first versions accepted only the
  group's numeric id (current ones also take the URL-encoded path), so the numeric id from the
  project listing's ``namespace.id`` is used whenever it is known.
* Releases come newest ``released_at`` first (``sort=desc`` is the default), ties broken by the
  newer release first: the first release of a project in the listing is its latest. An upcoming
  release sorts first there just as it does for the per-project ``permalink/latest``, so the
  two agree on what "latest" means.
* Pagination is by offset, with ``X-Next-Page`` (empty on the last page) and, below 10,000
  items, ``X-Total-Pages``.
* Current versions always include subgroups; the first ones listed only the group's own
  projects. So "no release seen" proves "no release" for a project in a subgroup only once the
  listing has shown a release of some project in a subgroup (any project, not only ours).
* A release names its project only through ``_links.self`` (``<project web_url>/-/releases/
  <tag>``) and ``tag_path`` (``/<project path>/-/tags/<tag>``). GitLab reserves ``-`` as a path
  segment, so the part before the first ``/-/`` is the project. ``tag_name``, ``tag_path`` and
  ``_links.self`` are shown only to a caller allowed to download the code. A release of ours
  without a tag is looked up on its own; a release naming no project at all could belong to any
  project not yet seen, so after one of those, silence proves nothing and those are asked too.
  A project listed without its web address cannot be recognised in the listing at all, so it
  is always asked on its own.

The listing is read only while it is cheaper than asking project by project: a project left
unsettled when reading stops is asked about on its own, so nothing is ever guessed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from bot.forge.base import NO_RELEASE, NoRelease, Project, Release
from bot.forge.predicate import same_path


def _norm(text: str) -> str:
    return text.strip().rstrip("/").lower()


def _project_part(link: str, marker: str) -> str | None:
    head, found, _ = link.partition(marker)
    return _norm(head) if found else None


def _self_link(item: dict[str, Any]) -> str | None:
    """A listed release's ``_links.self`` (``<project web_url>/-/releases/<tag>``), if shown."""
    links = item.get("_links")
    link = links.get("self") if isinstance(links, dict) else None
    return link if isinstance(link, str) else None


@dataclass
class GroupReleaseTally:
    """The latest release of each project, gathered page by page from the group listing.

    Args:
        group: the configured group's full path.
        projects: the projects whose latest release is wanted.
    """

    group: str
    projects: Sequence[Project]
    latest: dict[int, Release] = field(default_factory=dict)
    hidden: set[int] = field(default_factory=set)  # listed, but without a tag_name
    anonymous: bool = False  # a release naming no project was listed
    pages: int = 0
    subgroups_listed: bool = False
    _by_url: dict[str, Project] = field(default_factory=dict, init=False)
    _by_path: dict[str, Project] = field(default_factory=dict, init=False)
    _group_path: str | None = field(default=None, init=False)  # the group's URL path
    _unnamed: set[int] = field(default_factory=set, init=False)  # no web address to match

    def __post_init__(self) -> None:
        for project in self.projects:
            if not project.web_url:
                self._unnamed.add(project.id)
            else:
                path = _norm(urlsplit(project.web_url).path)
                self._by_url[_norm(project.web_url)] = project
                self._by_path[path] = project
                # A project's web path is the forge's root path, then the project's own path.
                own = "/" + _norm(project.path)
                if self._group_path is None and path.endswith(own):
                    self._group_path = path[: -len(own)] + "/" + _norm(self.group)

    def _in_subgroup(self, item: dict[str, Any]) -> bool:
        """Whether a listed release (of any project) belongs to a project in a subgroup."""
        tag_path = item.get("tag_path")
        link = _self_link(item)
        if isinstance(tag_path, str):
            path = _project_part(tag_path, "/-/tags/")
        elif link is not None:
            head = _project_part(link, "/-/releases/")
            path = _norm(urlsplit(head).path) if head is not None else None
        else:
            path = None
        if path is None or self._group_path is None:
            return False
        inside = path.removeprefix(self._group_path + "/")
        return inside != path and inside.count("/") >= 1

    def owner(self, item: dict[str, Any]) -> Project | None:
        """The project a listed release belongs to, if it is one of ours."""
        link = _self_link(item)
        if link is not None and (url := _project_part(link, "/-/releases/")) is not None:
            return self._by_url.get(url)
        tag_path = item.get("tag_path")
        if isinstance(tag_path, str) and (path := _project_part(tag_path, "/-/tags/")) is not None:
            return self._by_path.get(path)
        return None

    @staticmethod
    def _names_a_project(item: dict[str, Any]) -> bool:
        return _self_link(item) is not None or isinstance(item.get("tag_path"), str)

    def add_page(self, items: list[Any]) -> None:
        """Take one page of the listing, newest release first.

        Raises:
            ValueError: the page is not a list of releases.
        """
        if not isinstance(items, list):
            raise ValueError("the group's release listing is not a JSON array")
        self.pages += 1
        for item in items:
            if not isinstance(item, dict):
                raise ValueError("the group's release listing holds something other than releases")
            if not self.subgroups_listed and self._in_subgroup(item):
                self.subgroups_listed = True
            project = self.owner(item)
            if project is None and not self._names_a_project(item):
                self.anonymous = True
            if project is None or project.id in self.latest or project.id in self.hidden:
                continue
            if not same_path(project.namespace, self.group):
                self.subgroups_listed = True
            tag = item.get("tag_name")
            if not isinstance(tag, str) or not tag:
                self.hidden.add(project.id)
                continue
            self.latest[project.id] = Release(tag)

    def unsettled(self) -> list[Project]:
        """The projects whose latest release the listing has not shown yet, but still could."""
        nothing_to_learn = self.latest.keys() | self.hidden | self._unnamed
        return [p for p in self.projects if p.id not in nothing_to_learn]

    def worth_reading_on(self, total_pages: int | None) -> bool:
        """Whether reading the next page costs no more than asking the unsettled one by one.

        Once every project has been seen, no later page can change an answer. Otherwise the
        rest of the listing (``total_pages`` known) or at most as many pages as there are
        projects (unknown) is read; past that, asking each unsettled project is cheaper.
        """
        waiting = len(self.unsettled())
        if waiting == 0:
            return False
        if total_pages is not None:
            return self.pages < total_pages and total_pages - self.pages <= waiting
        return self.pages < len(self.projects)

    def answers(self, *, complete: bool) -> tuple[dict[int, Release | NoRelease], list[Project]]:
        """What the listing settles, and the projects still to be asked one by one.

        Args:
            complete: whether the listing was read to its last page. Only then does a project
                it never showed have no release, and, for a project in a subgroup, only when the
                listing showed a subgroup's release at all (older GitLab left subgroups out);
                never when a release naming no project was listed.
        """
        settled: dict[int, Release | NoRelease] = dict(self.latest)
        ask: list[Project] = []
        for project in self.projects:
            if project.id in settled:
                continue
            own = same_path(project.namespace, self.group)
            proven = complete and not self.anonymous and (own or self.subgroups_listed)
            if proven and project.id not in self.hidden | self._unnamed:
                settled[project.id] = NO_RELEASE
            else:
                ask.append(project)
        return settled, ask
