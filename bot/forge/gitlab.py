"""GitLab's REST API v4, as discovery needs it (aiohttp).

The token travels as ``PRIVATE-TOKEN`` and only to the configured API origin: requests are
built from ``gitlab.url.api``, redirects are never followed with it, and a redirect's target is
read only when it stays on that origin. The estate feed and the docs sites are fetched by a
second session that carries no credential at all.

Rate limits stop the run (``RateLimited``): a 429, or ``RateLimit-Remaining: 0`` on any answer,
since the next request would be refused and every further one spends the same budget.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urljoin, urlsplit

import aiohttp
from multidict import CIMultiDictProxy
from yarl import URL

from bot.config import Secret
from bot.errors import ForgeError, RateLimited
from bot.forge.base import (
    NO_RELEASE,
    NoRelease,
    Project,
    Release,
    SiteCheck,
    Unknown,
)
from bot.forge.origin import REDIRECTS, origin, redact_urls, same_origin
from bot.forge.predicate import same_path
from bot.forge.releases import GroupReleaseTally

log = logging.getLogger(__name__)

PER_PAGE = 100
RELEASE_CONCURRENCY = 4  # one-by-one release lookups in flight at once
MAX_PAGES = 10_000  # 1,000,000 projects: a listing that never ends is a broken server
# The estate feed lists paths, some 50 bytes each: 16 MiB is some 300,000 projects. More is a
# broken or hostile server, which would otherwise be read into memory to its end.
FEED_LIMIT = 16 * 1024 * 1024
_RELEASE_PATH = re.compile(r"/projects/[^/]+/releases/(?P<tag>[^/?#]+)/?$")


@dataclass(frozen=True, slots=True)
class _Answer:
    status: int
    headers: CIMultiDictProxy[str]
    body: bytes
    url: str

    def message(self) -> str:
        """GitLab's ``{"message": ...}``, or the start of the body."""
        try:
            data = json.loads(self.body)
        except ValueError:
            return self.body[:120].decode("utf-8", "replace").strip()
        if isinstance(data, dict) and "message" in data:
            return str(data["message"])
        return ""

    def describe(self) -> str:
        detail = self.message()
        return f"HTTP {self.status}" + (f" ({detail})" if detail else "")


class _Unreachable(ForgeError):
    """The request got no answer (timeout, refused connection, broken transfer)."""


class GitLabForge:
    """The ``Forge`` Protocol over GitLab's REST API."""

    def __init__(
        self,
        api_url: str,
        token: Secret | None,
        *,
        timeout: float = 30.0,
        site_timeout: float = 10.0,
    ) -> None:
        self.api_url = api_url.rstrip("/")
        self._token = token
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._site_timeout = aiohttp.ClientTimeout(total=site_timeout)
        self._api: aiohttp.ClientSession | None = None
        self._anonymous: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> GitLabForge:
        self._api = aiohttp.ClientSession(timeout=self._timeout)
        self._anonymous = aiohttp.ClientSession(timeout=self._site_timeout)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close both HTTP sessions."""
        for session in (self._api, self._anonymous):
            if session is not None:
                await session.close()

    # -- the one place a request to the API is made ------------------------------------------

    async def _get(self, path: str, params: dict[str, str] | None = None) -> _Answer:
        if self._api is None:
            raise RuntimeError("GitLabForge used outside 'async with'")
        url = self.api_url + path
        if params:
            url += "?" + "&".join(f"{k}={quote(v, safe='')}" for k, v in params.items())
        headers = {"Accept": "application/json"}
        # Belt and braces: the URL is built from the configured base, but the token still goes
        # only where that base points.
        if self._token is not None and same_origin(url, self.api_url):
            headers["PRIVATE-TOKEN"] = self._token.reveal()
        try:
            async with self._api.get(
                URL(url, encoded=True), headers=headers, allow_redirects=False
            ) as response:
                body = await response.read()
                answer = _Answer(response.status, response.headers, body, url)
        except TimeoutError:
            raise _Unreachable(f"GitLab did not answer {path} in time") from None
        except aiohttp.ClientError as exc:
            # aiohttp's message can quote the URL, and gitlab.url.api may carry a query token.
            raise _Unreachable(
                redact_urls(f"GitLab could not be reached for {path}: {exc}")
            ) from None
        _check_rate_limit(answer)
        return answer

    # -- the Protocol ------------------------------------------------------------------------

    async def group_projects(self, group: str) -> list[Project]:
        """Every project of ``group`` and its subgroups, once each, following ``X-Next-Page``.

        The listing is paged by offset, so a project added to the group (or moved into it) while
        it is read pushes the last project of a page onto the next one too: only its first
        listing counts, or the run would decide, fetch and index it twice, in one clone.
        """
        projects: dict[int, Project] = {}  # by id, in the order first listed
        asked: set[str] = set()  # page numbers asked for so far
        page = "1"
        for _ in range(MAX_PAGES):
            asked.add(page)
            try:
                answer = await self._get(
                    f"/groups/{quote(group, safe='')}/projects",
                    {
                        "include_subgroups": "true",
                        "with_shared": "false",
                        "order_by": "id",
                        "sort": "asc",
                        "per_page": str(PER_PAGE),
                        "page": page,
                    },
                )
            except _Unreachable as exc:
                # The listing comes first: where it gets no answer, no request of the run will.
                raise ForgeError(
                    f"{exc}. Check gitlab.url.api and that GitLab can be reached from here; if "
                    "GitLab is down, run the build again later"
                ) from None
            if answer.status == 404:
                raise ForgeError(
                    f"GitLab has no group {group!r} visible to this token ({answer.describe()}). "
                    "Check gitlab.group, and GITLAB_TOKEN if the group is not public."
                )
            if answer.status in REDIRECTS or (answer.status == 200 and _web_page(answer)):
                raise ForgeError(_not_the_api(group, answer))
            if answer.status != 200:
                raise ForgeError(
                    f"listing the projects of {group!r} failed: {answer.describe()}"
                    + _advice(answer.status, "read_api")
                )
            try:
                items = json.loads(answer.body)
                if not isinstance(items, list):
                    raise TypeError(f"page {page} is a {type(items).__name__}, not a list")
                fresh = 0  # projects this page is the first to list
                for index, item in enumerate(items):
                    try:
                        project = _project(item)
                    except _MALFORMED as exc:
                        raise TypeError(f"item {index + 1} of page {page}: {exc}") from None
                    if project.id not in projects:
                        projects[project.id] = project
                        fresh += 1
            except _MALFORMED as exc:
                raise ForgeError(
                    f"GitLab's project listing of {group!r} is not what it should be: {exc}"
                ) from None
            next_page = _next_page(answer)
            if not next_page:
                return list(projects.values())
            _check_listing_goes_on(group, page, next_page, answer, len(items), fresh, asked)
            page = next_page
        raise ForgeError(f"the project listing of {group!r} did not end after {MAX_PAGES} pages")

    async def project(self, path: str) -> Project | Unknown | None:
        """``GET /projects/:id`` by full path: the project as it is now, ``None`` on a 404.

        The group listing is paged by offset, so a project deleted while it is read shifts a
        later one onto a page already read; asking for the project itself settles whether a
        source the listing left out is really gone.
        """
        try:
            answer = await self._get(f"/projects/{quote(path, safe='')}")
        except _Unreachable as exc:
            return Unknown(str(exc))
        if answer.status == 404:
            return None
        if answer.status != 200:
            return Unknown(
                f"asking GitLab for {path} answered {answer.describe()}"
                + _advice(answer.status, "read_api")
            )
        try:
            return _project(json.loads(answer.body))
        except _MALFORMED as exc:
            return Unknown(f"GitLab's answer for {path} is not a project: {exc!r}")

    async def read_file(self, project: Project, path: str, ref: str) -> bytes | Unknown | None:
        """One file at ``ref``: ``None`` when GitLab says it is not there."""
        try:
            answer = await self._get(
                f"/projects/{project.id}/repository/files/{quote(path, safe='')}/raw",
                {"ref": ref},
            )
        except _Unreachable as exc:
            return Unknown(str(exc))
        if answer.status == 200 and _html(answer):
            # GitLab serves a file's raw bytes as plain text, never as HTML: a sign-in page or
            # a proxy answered in its place, and its page says nothing about the file.
            return Unknown(
                f"reading {path} answered a web page, not the file: a sign-in page or a proxy "
                "answers in GitLab's place. Check gitlab.url.api and what stands in front of it"
            )
        if answer.status == 200:
            return answer.body
        if answer.status == 404 and "project" not in answer.message().lower():
            return None  # "404 File Not Found" (or the ref has no such commit)
        return Unknown(f"reading {path} answered {answer.describe()}")

    async def latest_releases(
        self, group: str, projects: Sequence[Project]
    ) -> Mapping[int, Release | NoRelease | Unknown]:
        """Each project's latest release: from the group's release listing where it can tell.

        The listing (``bot.forge.releases`` has the wire facts) answers for the whole group in a
        page or a few; whatever it cannot settle, or every project when GitLab refuses it
        (older than 15.0, or the token may not read it), is asked project by project through
        ``permalink/latest``, so the answers are the same either way. A single project is
        asked directly: the listing could not be cheaper than one request.

        Raises:
            RateLimited: GitLab asked us to slow down; the run stops.
        """
        answers: dict[int, Release | NoRelease | Unknown] = {}
        ask: Sequence[Project] = projects
        if len(projects) > 1:
            try:
                settled, ask = await self._group_releases(group, projects)
            except _Unreachable as exc:
                # The same host answers both ways: asking each project would only wait again.
                return {p.id: Unknown(str(exc)) for p in projects}
            answers.update(settled)
        gate = asyncio.Semaphore(RELEASE_CONCURRENCY)

        async def one(project: Project) -> None:
            async with gate:
                answers[project.id] = await self.latest_release(project)

        try:
            async with asyncio.TaskGroup() as tasks:
                for project in ask:
                    tasks.create_task(one(project))
        except* RateLimited as caught:
            raise caught.exceptions[0] from None
        return answers

    async def _group_releases(
        self, group: str, projects: Sequence[Project]
    ) -> tuple[dict[int, Release | NoRelease], list[Project]]:
        """Read the group's release listing while it pays; return what it settled."""
        tally = GroupReleaseTally(group, projects)
        # The numeric id works on every version that has the endpoint; the path only on newer.
        ids = {p.namespace_id for p in projects if same_path(p.namespace, group)}
        ref = str(ids.pop()) if len(ids) == 1 and None not in ids else quote(group, safe="")
        asked: set[str] = set()  # page numbers asked for so far
        page = "1"
        while True:
            asked.add(page)
            answer = await self._get(
                f"/groups/{ref}/releases",
                {"sort": "desc", "per_page": str(PER_PAGE), "page": page},
            )
            if answer.status != 200:
                log.info(
                    "the release listing of %s answered %s; asking each project",
                    group,
                    answer.describe(),
                )
                return tally.answers(complete=False)
            try:
                items = json.loads(answer.body)
                tally.add_page(items)
            except ValueError as exc:
                log.warning("the release listing of %s is unreadable (%s)", group, exc)
                return tally.answers(complete=False)
            next_page = _next_page(answer)
            if not next_page:
                return tally.answers(complete=True)
            broken = _endless(answer, page, next_page, len(items), asked)
            if broken:
                log.warning(
                    "the release listing of %s %s, so it would never end; asking each project",
                    group,
                    broken,
                )
                return tally.answers(complete=False)
            if not tally.worth_reading_on(_total_pages(answer)):
                return tally.answers(complete=False)
            page = next_page

    async def latest_release(self, project: Project) -> Release | NoRelease | Unknown:
        """One project's latest release; a 404 means none, anything unexplained is Unknown."""
        path = f"/projects/{project.id}/releases/permalink/latest"
        try:
            answer = await self._get(path)
            if answer.status in REDIRECTS:
                location = urljoin(answer.url, answer.headers.get("Location", ""))
                # The redirect names the tag (notes: .../releases/<url-encoded tag>), which is
                # all we need: the commit comes from the repository's own refs.
                match = _RELEASE_PATH.search(urlsplit(location).path)
                if match:
                    return Release(unquote(match.group("tag")))
                if not same_origin(location, self.api_url):
                    return Unknown("the latest release redirects off the GitLab API")
                answer = await self._get(location[len(self.api_url) :])
        except _Unreachable as exc:
            return Unknown(str(exc))
        if answer.status == 200:
            try:
                return Release(str(json.loads(answer.body)["tag_name"]))
            except (ValueError, TypeError, KeyError):
                return Unknown("the latest release's answer carries no tag_name")
        if answer.status == 404 and "project" not in answer.message().lower():
            return NO_RELEASE
        if answer.status == 403:
            return Unknown("this token may not read the project's releases (HTTP 403)")
        return Unknown(f"the latest release answered {answer.describe()}")

    async def site_answers(self, url: str) -> SiteCheck | Unknown:
        """HEAD the site (GET when HEAD is refused), anonymously, following a few redirects."""
        if self._anonymous is None:
            raise RuntimeError("GitLabForge used outside 'async with'")
        where = origin(url)
        if where is None or where[0] not in ("http", "https"):
            return SiteCheck(False, "it is not an http(s) URL")
        try:
            status, final = await self._probe(url, "HEAD")
            if status in (405, 501):
                status, final = await self._probe(url, "GET")
        except TimeoutError:
            return Unknown(f"{url} did not answer in time")
        except aiohttp.ClientError as exc:
            return Unknown(f"{url} could not be reached: {exc}")
        forge = origin(self.api_url)
        final_where = origin(final)
        if forge and final_where and final_where[1] == forge[1] and "sign_in" in final:
            # A private site sends visitors to the forge's sign-in page.
            return SiteCheck(False, "it sends visitors to the GitLab sign-in page")
        if status < 400:
            return SiteCheck(True, f"HTTP {status}")
        if status in (408, 429) or status >= 500:
            return Unknown(f"{url} answered HTTP {status}")
        return SiteCheck(False, f"HTTP {status}")

    async def _probe(self, url: str, method: str) -> tuple[int, str]:
        assert self._anonymous is not None
        async with self._anonymous.request(
            method, url, allow_redirects=True, max_redirects=5
        ) as response:
            if method == "GET":
                await response.content.read(1024)
            return response.status, str(response.url)

    async def read_feed(self, url: str) -> bytes | Unknown:
        """The estate feed, fetched without any credential of ours.

        What went wrong is kept as the verdict's detail and shown by ``/sources``, so the
        feed's address is named without any password or query token it was configured with.
        """
        if self._anonymous is None:
            raise RuntimeError("GitLabForge used outside 'async with'")
        try:
            async with self._anonymous.get(url, allow_redirects=True, max_redirects=5) as response:
                if response.status != 200:
                    return Unknown(redact_urls(f"{url} answered HTTP {response.status}"))
                body = bytearray()
                async for chunk in response.content.iter_chunked(64 * 1024):
                    body += chunk
                    if len(body) > FEED_LIMIT:
                        return Unknown(
                            redact_urls(
                                f"{url} sent more than {FEED_LIMIT // 1024 // 1024} MiB, far "
                                "more than a list of project paths takes; it was read no further"
                            )
                        )
                return bytes(body)
        except TimeoutError:
            return Unknown(redact_urls(f"{url} did not answer in time"))
        except aiohttp.ClientError as exc:
            return Unknown(redact_urls(f"{url} could not be reached: {exc}"))


# What reading a project out of GitLab's JSON raises when an item is not shaped as one.
_MALFORMED = (ValueError, TypeError, KeyError)


def _project(item: dict[str, Any]) -> Project:
    """A project from GitLab's JSON; a field of the wrong shape raises TypeError naming it.

    The fields the predicate rejects on must be there as GitLab writes them: a project with no
    path would be indexed as one named "None", one whose visibility is left out would be
    rejected as private, one whose archiving is left out (GitLab's ``simple`` form leaves it
    out) would be admitted even if archived, and one whose id is not an integer (``true``
    reads as ``1``) would be asked about as another project. The listing fails instead of
    deciding, and so deleting or indexing, what it does not describe.
    """
    if not isinstance(item, dict):
        raise TypeError(f"a project is a {type(item).__name__}, not an object")
    path = item.get("path_with_namespace")
    if not isinstance(path, str) or not path.strip("/ "):
        raise TypeError(f"'path_with_namespace' is {_shape(path)}, not a project path")
    namespace = item.get("namespace") or {}
    if not isinstance(namespace, dict):
        raise TypeError(f"{path}: 'namespace' is a {type(namespace).__name__}, not an object")
    visibility = item.get("visibility")
    if not isinstance(visibility, str) or not visibility:
        raise TypeError(f"{path}: 'visibility' is {_shape(visibility)}, not a visibility level")
    archived = item.get("archived")
    if not isinstance(archived, bool):
        raise TypeError(f"{path}: 'archived' is {_shape(archived)}, not true or false")
    # Every later request names the project by its id, so it must be the integer GitLab
    # writes: int() would read true as project 1, and a listing that writes "7" or 2.0 is not
    # GitLab's as documented, so nothing in it is decided on. A bool is no id, though Python
    # counts it an int.
    project_id = _int_or_none(item.get("id"))
    if project_id is None:
        raise TypeError(f"{path}: 'id' is {_shape(item.get('id'))}, not a project id")
    return Project(
        id=project_id,
        path=path,
        namespace=str(namespace.get("full_path") or path.rpartition("/")[0]),
        visibility=visibility,
        archived=archived,
        empty_repo=bool(item.get("empty_repo", False)),
        default_branch=item.get("default_branch") or None,
        http_url=item.get("http_url_to_repo") or None,
        ssh_url=item.get("ssh_url_to_repo") or None,
        web_url=str(item.get("web_url") or ""),
        pages_access_level=item.get("pages_access_level"),
        namespace_id=_int_or_none(namespace.get("id")),
    )


def _shape(value: object) -> str:
    """What a JSON field holds, for a message: ``missing or null``, ``empty``, ``a list``."""
    if value is None:
        return "missing or null"
    if value == "":
        return "empty"
    return f"a {type(value).__name__}"


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _web_page(answer: _Answer) -> bool:
    """Whether an answer is HTML: a sign-in page or GitLab's web UI, not its API."""
    return _html(answer) or answer.body.lstrip()[:1] == b"<"


def _html(answer: _Answer) -> bool:
    """Whether an answer says it is HTML, which no answer of GitLab's API is."""
    return answer.headers.get("Content-Type", "").lower().startswith("text/html")


def _not_the_api(group: str, answer: _Answer) -> str:
    """Why a listing answered by a redirect or a web page came from something but the API.

    Both mean ``gitlab.url.api`` is not the API's root as it is reached (its web address, or
    http where GitLab sends everyone to https), or that a sign-in page answers in its place.
    """
    if answer.status in REDIRECTS:
        target = urljoin(answer.url, answer.headers.get("Location", ""))
        what = f"redirects to {redact_urls(target)}, where no request of ours follows"
    else:
        what = "is a web page, not JSON, as a sign-in page or GitLab's web address answers"
    return (
        f"GitLab's project listing of {group!r} {what}. Set gitlab.url.api to GitLab's API "
        "root as it is reached directly, ending in /api/v4 (such as "
        "https://gitlab.example.com/api/v4)"
    )


def _advice(status: int, scope: str) -> str:
    """What to do about a refused or failed answer, as a sentence to append to its message."""
    if status == 401:
        return (
            ". GitLab did not accept the token: GITLAB_TOKEN is missing, wrong or expired. "
            "Set GITLAB_TOKEN, or renew the token."
        )
    if status == 403:
        return (
            f". The token lacks the {scope} scope, or the group or project forbids this token. "
            f"Give GITLAB_TOKEN the {scope} scope, or a token with access."
        )
    if status >= 500:
        return ". GitLab itself is failing; try again later."
    return ""


def _check_listing_goes_on(
    group: str, page: str, next_page: str, answer: _Answer, served: int, fresh: int, asked: set[str]
) -> None:
    """Refuse a project listing that would never end.

    Besides what ends any listing (``_endless``), it serves again only projects it already
    listed: GitLab orders the listing by id, so every page of a working listing holds projects
    not seen before. ``served``: the projects on ``page``; ``fresh``: how many were new.
    """
    broken = _endless(answer, page, next_page, served, asked)
    if not broken and not fresh:
        broken = f"serves on page {page} only projects it listed before"
    if broken:
        raise ForgeError(
            f"GitLab's project listing of {group!r} {broken}, so it would never end; "
            "the listing is broken, and nothing was changed"
        )


def _endless(answer: _Answer, page: str, next_page: str, served: int, asked: set[str]) -> str:
    """Why a listing whose ``page`` (of ``served`` items) names ``next_page`` never ends, or "".

    It names a page past the ``X-Total-Pages`` it announced, a page it was already asked for
    (``asked`` holds the page numbers asked so far, ``page`` among them), or a next page after
    an empty one: following it would go round for ever.
    """
    total = _total_pages(answer)
    if total is not None and next_page.isdigit() and int(next_page) > total:
        return f"names page {next_page} after announcing {total} pages"
    if next_page in asked:
        return f"names page {next_page} again after page {page}"
    if not served:
        return f"names page {next_page} after an empty page {page}"
    return ""


def _total_pages(answer: _Answer) -> int | None:
    """``X-Total-Pages``; GitLab leaves it out of a listing of more than 10,000 items."""
    total = answer.headers.get("X-Total-Pages", "").strip()
    return int(total) if total.isdigit() else None


def _next_page(answer: _Answer) -> str:
    """The next page number: ``X-Next-Page``, else the ``Link`` header's ``rel="next"``."""
    if "X-Next-Page" in answer.headers:
        return answer.headers["X-Next-Page"].strip()
    for part in answer.headers.get("Link", "").split(","):
        target, _, rel = part.partition(";")
        if 'rel="next"' in rel.replace(" ", ""):
            query = parse_qs(urlsplit(target.strip().strip("<>")).query)
            return (query.get("page") or [""])[0]
    return ""


def _check_rate_limit(answer: _Answer) -> None:
    """Raise ``RateLimited`` on a 429, or when the quota says nothing is left."""
    remaining = answer.headers.get("RateLimit-Remaining", "").strip()
    if answer.status != 429 and remaining != "0":
        return
    wait = _retry_after(answer.headers)
    when = ""
    if wait is not None:
        until = _until_text(wait)
        if wait > _LONGEST_WAIT:
            # A time more than a day away is a clock or proxy mistake, not a wait to honour.
            when = f"; GitLab asked to wait until {until}, more than a day away, so try again later"
            wait = None
        else:
            when = f"; GitLab asks to wait {_wait_text(wait)} (until {until})"
    raise RateLimited(
        f"GitLab rate-limited phpbotscout{when}. The run stopped; everything indexed before "
        "the limit is kept. Run 'python -m bot.cli index build' again later.",
        retry_after=wait,
    )


_LONGEST_WAIT = 86400.0  # seconds; a longer wait than a day is not taken at its word


def _wait_text(seconds: float) -> str:
    """``30 s``, ``10 min`` or ``3 h 5 min``."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    if minutes < 120:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60} min"


def _until_text(seconds: float) -> str:
    """The time ``seconds`` from now, in UTC to the minute, or "a time past the year 9999"."""
    try:
        until = datetime.now(UTC) + timedelta(seconds=seconds)
    except OverflowError:
        return "a time past the year 9999"
    return until.strftime("%Y-%m-%d %H:%M UTC")


def _retry_after(headers: CIMultiDictProxy[str]) -> float | None:
    value = headers.get("Retry-After", "").strip()
    if value:
        if value.replace(".", "", 1).isdigit():
            return float(value)
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            pass
    reset = headers.get("RateLimit-Reset", "").strip()
    if reset.isdigit():  # Unix epoch seconds, not a delay
        return max(0.0, int(reset) - time.time())
    return None
