"""A fake GitLab on loopback: the REST v4 endpoints discovery uses, and real git over HTTP.

The API side serves group listings (subgroups, pagination with ``X-Next-Page``, shared
projects, an estate that changes between pages), single projects by id or path, raw files
read from the real repositories, the latest-release permalink (302 to the release, 404 for
none), the group's release listing (newest first, paginated, by numeric id or
path, optionally refused or without subgroups, as older GitLab), the estate feed and the docs
sites. There is deliberately no Pages API: a client that asked it would get a 404 and show up
in the request log. The git side runs the real
``git http-backend`` as a CGI program, behind HTTP Basic authentication when a token is set,
so clones and fetches are git talking to git.

Every request is logged with the headers that matter, and rules inject failures: a status
(429 with ``Retry-After``, 500, 503...), a delay, or a hold until the test lets go, on a path
pattern, a number of times.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from aiohttp import web

from tests.fakes.server import ThreadedServer
from tests.gitrepo import GIT_ENV


@dataclass
class FakeProject:
    """One project of the fake forge; its repository lives at ``<git root>/<path>.git``."""

    id: int
    path: str
    visibility: str = "public"
    archived: bool = False
    empty_repo: bool = False
    default_branch: str | None = "main"
    pages_access_level: str | None = "enabled"  # None: the listing leaves it out
    release: str | int | None = None  # a tag, None for no release, or a status to answer
    older_releases: tuple[str, ...] = ()  # earlier releases, oldest first
    shared: bool = False  # listed only when the client asks for shared projects
    namespace: str | None = None  # overrides the namespace derived from the path
    http_url: str | None = None  # overrides the clone URL the API reports
    ssh_url: str | None = None
    lists_web_url: bool = True  # False: the listing leaves ``web_url`` out
    malformed: dict[str, Any] = field(default_factory=dict)  # fields served as given, broken
    omits: tuple[str, ...] = ()  # fields the API leaves out of the project
    former_paths: tuple[str, ...] = ()  # earlier paths, which GitLab still answers for

    @property
    def namespace_path(self) -> str:
        return self.namespace or self.path.rpartition("/")[0]

    def json(self, base: str, namespace_id: int) -> dict[str, Any]:
        namespace = self.namespace_path
        served = (
            {
                "id": self.id,
                "name": self.path.rpartition("/")[2],
                "path": self.path.rpartition("/")[2],
                "path_with_namespace": self.path,
                "namespace": {"id": namespace_id, "full_path": namespace, "kind": "group"},
                "visibility": self.visibility,
                "archived": self.archived,
                "empty_repo": self.empty_repo,
                "default_branch": self.default_branch,
                "http_url_to_repo": self.http_url or f"{base}/{self.path}.git",
                "ssh_url_to_repo": self.ssh_url or f"git@127.0.0.1:{self.path}.git",
                "pages_access_level": self.pages_access_level,
            }
            | ({"web_url": f"{base}/{self.path}"} if self.lists_web_url else {})
            | self.malformed
        )
        return {k: v for k, v in served.items() if k not in self.omits}


@dataclass
class Rule:
    """Answer requests whose path matches ``pattern`` with ``status`` (and/or after ``delay``)."""

    pattern: str
    status: int | None = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    body: str | None = None  # served instead of the injected message, as text/html
    times: int | None = None  # apply this many times, then stop (None: always)
    skip: int = 0  # let this many matching requests through first
    # A request it applies to sets ``arrived``, then, with ``release`` given, waits for it to
    # be set before anything else: a transfer held open under the test's control. Leaving,
    # the fake sets every one it waited on, so that no request waits for ever.
    arrived: threading.Event = field(default_factory=threading.Event)
    release: threading.Event | None = None
    seen: int = 0

    def applies(self, path: str) -> bool:
        if not re.search(self.pattern, path):
            return False
        self.seen += 1
        if self.seen <= self.skip:
            return False
        return self.times is None or self.seen - self.skip <= self.times


@dataclass(frozen=True)
class Logged:
    method: str
    path: str
    query: str
    authorization: str | None
    private_token: str | None
    status: int = 0

    @property
    def is_git(self) -> bool:
        return ".git/" in self.path

    @classmethod
    def of(cls, request: web.Request, status: int) -> Logged:
        """What the log keeps of one request, credentials included (to prove where they went)."""
        return cls(
            request.method,
            request.path,
            request.query_string,
            request.headers.get("Authorization"),
            request.headers.get("PRIVATE-TOKEN"),
            status,
        )


class FakeGitLab:
    """The fake forge. Use as a context manager; ``url`` is its root, ``api`` its API base."""

    def __init__(
        self,
        git_root: Path,
        *,
        group: str = "acme",
        token: str | None = None,
        host: str = "127.0.0.1",
    ) -> None:
        self.git_root = git_root
        self.group = group
        self.token = token
        self.projects: list[FakeProject] = []
        self.feed: Any = []
        self.sites: dict[str, int] = {}  # site name -> status its pages answer
        self.page_size = 100
        self.omit_totals = False
        # A broken listing that never ends: "onward" names a next page past the last one for
        # ever; "repeat" serves the first page again under every page number, for ever;
        # "again" names each page as its own next page; "back" names page 1 after the last.
        # ``endless_pages`` breaks the group's project listing, ``endless_releases`` its
        # release listing.
        self.endless_pages: str | None = None
        self.endless_releases: str | None = None
        self.honour_with_shared = True
        # The group release listing: a status to answer instead (403, 404...), whether it takes
        # the group's path as well as its numeric id, and whether it includes subgroups (older
        # GitLab did neither of the last two).
        self.group_releases: int | None = None
        self.group_releases_by_path = True
        self.releases_include_subgroups = True
        self._namespace_ids: dict[str, int] = {}
        # Called after the group listing serves the page numbered by its key: the estate can
        # change while a client is between pages, as it does on a busy instance.
        self.after_page: dict[int, Callable[[], None]] = {}
        self.rules: list[Rule] = []
        self.log: list[Logged] = []
        self._holding: set[threading.Event] = set()  # what held requests wait for
        self._lock = threading.Lock()
        self.server = ThreadedServer(self._app(), host=host)

    # -- set-up ------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def api(self) -> str:
        return f"{self.url}/api/v4"

    def repo_dir(self, path: str) -> Path:
        return self.git_root / f"{path}.git"

    def site_url(self, name: str) -> str:
        return f"{self.url}/sites/{name}/"

    def namespace_id(self, path: str) -> int:
        """A stable numeric id for a namespace (the group's is always 1000)."""
        if path == self.group:
            return 1000
        return self._namespace_ids.setdefault(path, 1001 + len(self._namespace_ids))

    def add(self, project: FakeProject) -> FakeProject:
        self.projects.append(project)
        return project

    def project(self, path: str) -> FakeProject:
        return next(p for p in self.projects if p.path == path)

    def requests_for(self, project: FakeProject) -> list[Logged]:
        """Every logged request about one project: its API resources and its repository."""
        api = f"/api/v4/projects/{project.id}/"
        git = f"/{project.path}.git/"
        return [r for r in self.log if r.path.startswith(api) or r.path.startswith(git)]

    def clear_log(self) -> None:
        with self._lock:
            self.log.clear()

    def __enter__(self) -> FakeGitLab:
        self.server.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        # Every request held, even by a rule since taken away: a thread still waiting on one
        # would keep the test process from ever exiting.
        with self._lock:  # handlers add to it under the lock
            holding = list(self._holding)
        for release in holding:
            release.set()
        self.server.stop()

    # -- the application ---------------------------------------------------------------------

    def _app(self) -> web.Application:
        app = web.Application(middlewares=[self._middleware])
        r = app.router
        r.add_get("/api/v4/groups/{group}/projects", self._group_projects)
        r.add_get("/api/v4/projects/{id}", self._project)
        r.add_get("/api/v4/projects/{id}/repository/files/{file_path}/raw", self._raw)
        r.add_get("/api/v4/projects/{id}/releases/permalink/latest", self._latest_release)
        r.add_get("/api/v4/projects/{id}/releases/{tag}", self._release)
        r.add_get("/api/v4/groups/{group}/releases", self._group_releases)
        r.add_get("/feed.json", self._feed)
        r.add_route("*", "/sites/{name}/{rest:.*}", self._site)
        r.add_route(
            "*", "/{repo:.+\\.git}/{rest:(info/refs|git-upload-pack|git-receive-pack)}", self._git
        )
        return app

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Any) -> web.StreamResponse:
        status = 0
        try:
            for rule in list(self.rules):
                with self._lock:
                    hit = rule.applies(request.path)
                if not hit:
                    continue
                rule.arrived.set()
                if rule.release is not None:
                    with self._lock:
                        self._holding.add(rule.release)
                    await asyncio.to_thread(rule.release.wait)
                if rule.delay:
                    await asyncio.sleep(rule.delay)
                if rule.status is not None:
                    status = rule.status
                    body = json.dumps({"message": f"{rule.status} injected"})
                    if rule.status == 429:
                        body = "Retry later\n"
                    if rule.body is not None:
                        return web.Response(
                            status=rule.status,
                            text=rule.body,
                            content_type="text/html",
                            headers=rule.headers,
                        )
                    return web.Response(status=rule.status, text=body, headers=rule.headers)
            response = await handler(request)
            status = response.status
            return response
        except web.HTTPException as exc:
            status = exc.status
            raise
        finally:
            with self._lock:
                self.log.append(Logged.of(request, status))

    def _by_id(self, request: web.Request) -> FakeProject:
        wanted = request.match_info["id"]
        for project in self.projects:
            if str(project.id) == wanted:
                return project
        raise web.HTTPNotFound(text=json.dumps({"message": "404 Project Not Found"}))

    def _visible(self, project: FakeProject, request: web.Request) -> bool:
        """Private projects are listed only to a caller holding the token (a member)."""
        if project.visibility == "public":
            return True
        return self.token is not None and request.headers.get("PRIVATE-TOKEN") == self.token

    async def _group_projects(self, request: web.Request) -> web.Response:
        group = unquote(request.match_info["group"])
        if group != self.group:
            return web.json_response({"message": "404 Group Not Found"}, status=404)
        with_shared = request.query.get("with_shared", "true") != "false"
        listed = [
            p
            for p in self.projects
            if self._visible(p, request)
            and (not p.shared or with_shared or not self.honour_with_shared)
        ]
        chunk, headers = self._paged(request, listed, self.endless_pages)
        response = web.json_response(
            [p.json(self.url, self.namespace_id(p.namespace_path)) for p in chunk],
            headers=headers,
        )
        hook = self.after_page.pop(int(request.query.get("page", "1")), None)
        if hook is not None:
            hook()
        return response

    async def _project(self, request: web.Request) -> web.Response:
        """One project by id or full path, shared or not, as ``GET /projects/:id``.

        A path the project had before a rename or a move answers with the project as it is now,
        as GitLab follows its redirect routes.
        """
        wanted = unquote(request.match_info["id"])
        for p in self.projects:
            named = str(p.id) == wanted or wanted in (p.path, *p.former_paths)
            if named and self._visible(p, request):
                return web.json_response(p.json(self.url, self.namespace_id(p.namespace_path)))
        return web.json_response({"message": "404 Project Not Found"}, status=404)

    def _paged(
        self, request: web.Request, listed: list[Any], endless: str | None
    ) -> tuple[list[Any], dict[str, str]]:
        per_page = min(int(request.query.get("per_page", "20")), self.page_size)
        page = int(request.query.get("page", "1"))
        chunk = listed[(page - 1) * per_page : page * per_page]
        more = page * per_page < len(listed)
        next_page = str(page + 1) if more else ""
        if endless in ("onward", "repeat"):
            next_page = str(page + 1)
        elif endless == "again":
            next_page = str(page)
        elif endless == "back" and not more:
            next_page = "1"
        if endless == "repeat":
            chunk = listed[:per_page]
        headers = {
            "X-Page": str(page),
            "X-Per-Page": str(per_page),
            "X-Next-Page": next_page,
            "X-Prev-Page": str(page - 1) if page > 1 else "",
        }
        if not self.omit_totals:
            headers["X-Total"] = str(len(listed))
            headers["X-Total-Pages"] = str(max(1, -(-len(listed) // per_page)))
        return chunk, headers

    async def _group_releases(self, request: web.Request) -> web.Response:
        if self.group_releases is not None:
            return web.json_response(
                {"message": f"{self.group_releases} refused"}, status=self.group_releases
            )
        wanted = unquote(request.match_info["group"])
        namespaces = {self.group} | {p.namespace_path for p in self.projects}
        by_id = {str(self.namespace_id(ns)): ns for ns in namespaces}
        if wanted in by_id:
            group = by_id[wanted]
        elif not self.group_releases_by_path:
            return web.json_response({"error": "id is invalid"}, status=400)
        elif wanted in namespaces:
            group = wanted
        else:
            return web.json_response({"message": "404 Group Not Found"}, status=404)
        entries: list[tuple[datetime, int, dict[str, Any]]] = []
        for project in self.projects:
            ns = project.namespace_path
            inside = ns == group or (self.releases_include_subgroups and ns.startswith(group + "/"))
            if project.shared or not inside or not self._visible(project, request):
                continue
            tags: list[str | int] = [*project.older_releases]
            if project.release is not None:
                tags.append(project.release)
            for age, tag in enumerate(reversed(tags)):
                # Later projects released later; each earlier release a month before the next.
                when = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(
                    hours=project.id, days=-30 * age
                )
                entries.append((when, len(entries), self._release_json(project, tag, when)))
        entries.sort(key=lambda e: (e[0], e[1]), reverse=True)
        chunk, headers = self._paged(request, [e[2] for e in entries], self.endless_releases)
        return web.json_response(chunk, headers=headers)

    def _release_json(self, project: FakeProject, tag: str | int, when: datetime) -> dict[str, Any]:
        name = tag if isinstance(tag, str) else "hidden"
        entry: dict[str, Any] = {
            "name": name,
            "released_at": when.isoformat().replace("+00:00", "Z"),
            "upcoming_release": False,
            "_links": {},
        }
        if isinstance(tag, str):  # a release whose code the caller may not download hides these
            entry["tag_name"] = tag
            entry["tag_path"] = f"/{project.path}/-/tags/{tag}"
            entry["_links"]["self"] = f"{self.url}/{project.path}/-/releases/{quote(tag, safe='')}"
        return entry

    async def _raw(self, request: web.Request) -> web.Response:
        project = self._by_id(request)
        path = request.match_info["file_path"]
        ref = request.query.get("ref", "HEAD")
        done = await asyncio.to_thread(
            subprocess.run,
            ["git", "-C", str(self.repo_dir(project.path)), "show", f"{ref}:{path}"],
            capture_output=True,
            env={**os.environ, **GIT_ENV},
        )
        if done.returncode != 0:
            message = (
                "404 Commit Not Found"
                if "invalid object" in done.stderr.decode()
                else "404 File Not Found"
            )
            return web.json_response({"message": message}, status=404)
        return web.Response(
            body=done.stdout,
            content_type="text/plain",
            charset="utf-8",
            headers={"X-Gitlab-Ref": ref},
        )

    async def _latest_release(self, request: web.Request) -> web.Response:
        project = self._by_id(request)
        if project.release is None:
            return web.json_response({"message": "404 Not Found"}, status=404)
        if isinstance(project.release, int):
            return web.json_response(
                {"message": f"{project.release} Forbidden"}, status=project.release
            )
        location = f"/api/v4/projects/{project.id}/releases/{quote(project.release, safe='')}"
        return web.Response(status=302, headers={"Location": location})

    async def _release(self, request: web.Request) -> web.Response:
        project = self._by_id(request)
        tag = unquote(request.match_info["tag"])
        if project.release != tag:
            return web.json_response({"message": "404 Not Found"}, status=404)
        return web.json_response({"tag_name": tag, "name": tag, "upcoming_release": False})

    async def _feed(self, request: web.Request) -> web.Response:
        if isinstance(self.feed, int):
            return web.Response(status=self.feed)
        if isinstance(self.feed, bytes):
            return web.Response(body=self.feed, content_type="application/json")
        return web.json_response(self.feed)

    async def _site(self, request: web.Request) -> web.Response:
        status = self.sites.get(request.match_info["name"], 404)
        return web.Response(status=status, text="<html>docs</html>" if status < 400 else "")

    # -- git over HTTP -----------------------------------------------------------------------

    def _authorised(self, request: web.Request) -> bool:
        if self.token is None:
            return True
        expected = base64.b64encode(f"oauth2:{self.token}".encode()).decode()
        return request.headers.get("Authorization") == f"Basic {expected}"

    async def _git(self, request: web.Request) -> web.StreamResponse:
        if not self._authorised(request):
            return web.Response(
                status=401,
                text="HTTP Basic: Access denied.\n",
                headers={"WWW-Authenticate": 'Basic realm="GitLab"'},
            )
        body = await request.read()
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_PROJECT_ROOT": str(self.git_root),
            "GIT_HTTP_EXPORT_ALL": "1",
            "PATH_INFO": f"/{request.match_info['repo']}/{request.match_info['rest']}",
            "QUERY_STRING": request.query_string,
            "REQUEST_METHOD": request.method,
            "CONTENT_TYPE": request.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "REMOTE_ADDR": "127.0.0.1",
            "GIT_PROTOCOL": request.headers.get("Git-Protocol", ""),
            "HTTP_CONTENT_ENCODING": request.headers.get("Content-Encoding", ""),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
        }
        proc = await asyncio.create_subprocess_exec(
            "git",
            "http-backend",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
        )
        out, _err = await proc.communicate(body)
        head, _, payload = out.partition(b"\r\n\r\n")
        if not _:
            head, _, payload = out.partition(b"\n\n")
        status = 200
        headers: dict[str, str] = {}
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.strip().split()[0])
            elif name:
                headers[name.strip()] = value.strip()
        return web.Response(status=status, body=payload, headers=headers)


class Recorder:
    """A second listener that only records what reaches it (a 'foreign' host)."""

    def __init__(self, host: str = "127.0.0.2") -> None:
        self.log: list[Logged] = []
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._record)
        self.server = ThreadedServer(app, host=host)

    async def _record(self, request: web.Request) -> web.Response:
        self.log.append(Logged.of(request, 401))
        return web.Response(status=401, headers={"WWW-Authenticate": 'Basic realm="x"'})

    @property
    def url(self) -> str:
        return self.server.url

    def __enter__(self) -> Recorder:
        self.server.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.server.stop()
