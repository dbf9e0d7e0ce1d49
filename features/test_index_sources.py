import asyncio
import json
import os
import re
import shutil
import signal
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from bot import config as config_module
from bot import render
from bot.cli import main
from bot.engine import Engine
from bot.forge.gitlab import FEED_LIMIT
from features.conftest import ChangedAsItStarts, World, build_changing, cli_arguments
from tests.fakes.estate import (
    another_process_holding,
    push,
    release,
    rename,
    site_config,
    upstream,
)
from tests.fakes.gitlab import FakeGitLab, Rule
from tests.fakes.ssh import HOST_KEY_UNKNOWN, KEY_REFUSED, refusing_ssh
from tests.fetch_slots import Transfers, refresh_beside_two
from tests.gitrepo import corrupt_packed_object, git, make_repo
from tests.pipes import exited, start_cli
from tests.processes import Process, descendants

scenarios("index_sources.feature")


@pytest.fixture
def forge(world: World) -> Iterator[FakeGitLab]:
    with FakeGitLab(world.root / "upstream") as fake:
        yield fake


@given(parsers.parse('a fake GitLab group "{group}"'))
def fake_group(forge: FakeGitLab, group: str) -> None:
    forge.group = group


@given(
    parsers.re(
        r"the forge has an? (?P<kind>public|private|archived) project "
        r'"(?P<path>[^"]+)" (?P<site>with|without) a docs site'
    )
)
def forge_project(forge: FakeGitLab, kind: str, path: str, site: str) -> None:
    name = path.rpartition("/")[2]
    files: dict[str, str | bytes | None] = {"README.md": f"# {name}\n\nAbout {name}.\n"}
    if site == "with":
        files["zensical.toml"] = site_config(forge, name)
        files["docs/index.md"] = f"# {name}\n\nThe {name} manual.\n"
    upstream(
        forge,
        path,
        files,
        site=site == "with",
        visibility="private" if kind == "private" else "public",
        archived=kind == "archived",
    )


@given(parsers.parse('the estate feed lists every project except "{path}"'))
def feed_except(forge: FakeGitLab, path: str) -> None:
    forge.feed = [p.path for p in forge.projects if p.path != path]


@given("the estate feed grows past 16 MiB")
def feed_huge(forge: FakeGitLab) -> None:
    filler = [f"acme/filler-{i:08d}" for i in range(FEED_LIMIT // 20)]
    forge.feed = json.dumps([p.path for p in forge.projects] + filler).encode()


@given("the estate feed lists no project at all")
def feed_empty(forge: FakeGitLab) -> None:
    forge.feed = []


@given("a configuration discovering that group")
def discovering_configuration(
    world: World, forge: FakeGitLab, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A member's token: private projects are listed to it, and must still be rejected.
    forge.token = "glpat-feature"
    monkeypatch.setenv("GITLAB_TOKEN", forge.token)
    (world.root / "phpbotscout.toml").write_text(
        "[sources]\n\n"
        f'[gitlab]\ngroup = "{forge.group}"\n[gitlab.url]\napi = "{forge.api}"\n\n'
        f'[index]\npath = "index.sqlite"\nclones = "clones"\n'
        f'[index.feed]\nurl = "{forge.url}/feed.json"\n'
    )


@given(parsers.parse('the configuration writes the group as "{spelling}"'))
def group_respelled(world: World, forge: FakeGitLab, spelling: str) -> None:
    config = world.root / "phpbotscout.toml"
    written = f'group = "{forge.group}"'
    assert written in config.read_text()
    config.write_text(config.read_text().replace(written, f'group = "{spelling}"'))


@given(parsers.parse('the docs site of "{path}" answers {status:d}'))
def site_fails(forge: FakeGitLab, status: int, path: str) -> None:
    forge.sites[path.rpartition("/")[2]] = status


@given(parsers.parse('GitLab reports Pages "{level}" for "{path}"'))
def pages_level(forge: FakeGitLab, level: str, path: str) -> None:
    forge.project(path).pages_access_level = level


@given(parsers.parse('"{path}" has a release "{tag}"'))
def has_release(forge: FakeGitLab, path: str, tag: str) -> None:
    release(forge, path, tag)


@given(parsers.parse('"{path}" has a release "{tag}" whose code declares "{name}"'))
def released_code(forge: FakeGitLab, path: str, tag: str, name: str) -> None:
    push(
        forge,
        path,
        {"config.go": f"package config\n\n// {name} does its work.\nfunc {name}() {{}}\n"},
    )
    release(forge, path, tag)


@given(parsers.parse('"{path}" has code declaring "{name}" that no release ships yet'))
def unreleased_code(forge: FakeGitLab, path: str, name: str) -> None:
    push(
        forge,
        path,
        {"next.go": f"package config\n\n// {name} is not released.\nfunc {name}() {{}}\n"},
    )


@given(parsers.parse('GitLab answers {status:d} when asked for the releases of "{path}"'))
def release_lookup_fails(forge: FakeGitLab, status: int, path: str) -> None:
    forge.project(path).release = status


@when(parsers.parse('GitLab names "{tag}" as the latest release of "{path}" again'))
def release_lookup_answers(forge: FakeGitLab, tag: str, path: str) -> None:
    forge.project(path).release = tag


@given(parsers.parse('GitLab lists "{path}" without its web address'))
def lists_without_web_url(forge: FakeGitLab, path: str) -> None:
    forge.project(path).lists_web_url = False


@given(parsers.parse("GitLab refuses the group's release listing with {status:d}"))
def refuses_group_releases(forge: FakeGitLab, status: int) -> None:
    forge.group_releases = status


@given("GitLab's group listing names a next page for ever")
def endless_listing(forge: FakeGitLab) -> None:
    forge.endless_pages = "onward"


@given("GitLab leaves the page counts out of its listings")
def no_page_counts(forge: FakeGitLab) -> None:
    forge.omit_totals = True


@given("GitLab's release listing names its own page as the next for ever")
def endless_releases(forge: FakeGitLab) -> None:
    forge.endless_releases = "again"


@given(parsers.re(r"GitLab lists (?P<size>\d+) projects? a page"))
def page_size(forge: FakeGitLab, size: str) -> None:
    forge.page_size = int(size)


@given(parsers.parse('"{path}" is deleted once the first page has been read'))
def deleted_mid_listing(forge: FakeGitLab, path: str) -> None:
    forge.after_page[1] = lambda: forge.projects.remove(forge.project(path))


@given(
    parsers.parse(
        'a public project "{path}" moves into the group once the first page has been read'
    )
)
def moved_in_mid_listing(forge: FakeGitLab, path: str) -> None:
    # Listed ahead of the others from then on: the last project of page 1 is on page 2 too.
    moved = upstream(forge, path, {"README.md": "# Moved\n\nIt moved.\n"}, site=False)
    forge.projects.remove(moved)
    forge.after_page[1] = lambda: forge.projects.insert(0, moved)


@given(parsers.parse('"{path}" is renamed to "{new}", in GitLab and in the estate feed'))
def renamed(forge: FakeGitLab, path: str, new: str) -> None:
    rename(forge, path, new)
    forge.feed = [new if entry == path else entry for entry in forge.feed]


@given("another process is refreshing the clones, with a clone in progress")
def clones_held(world: World, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    root = world.root / "clones"
    (root / "+tmp-theirs" / ".git").mkdir(parents=True)
    monkeypatch.setattr("bot.clones.LOCK_WAIT", 0.0)  # no waiting for it to finish
    with another_process_holding(root):
        yield


@then("the other process's clone in progress is still there")
def clone_in_progress_kept(world: World) -> None:
    assert (world.root / "clones" / "+tmp-theirs" / ".git").is_dir()


def _clone(world: World, path: str) -> Path:
    """Where the build keeps the clone of the project at ``path``."""
    return world.root / "clones" / quote(path, safe="")


@given(parsers.parse('the clone of "{path}" is a link to where it was moved'))
def clone_behind_a_link(world: World, path: str) -> None:
    # Nothing, root included, deletes a clone through a link: shutil.rmtree refuses to.
    clone = _clone(world, path)
    clone.rename(world.root / "moved-clone")
    clone.symlink_to(world.root / "moved-clone")


@given(parsers.parse('another configuration has cloned "{path}" into the same clones directory'))
def foreign_clone(world: World, path: str) -> None:
    make_repo(_clone(world, path), {"README.md": "# Tools\n"})


@then(parsers.parse('the clone of "{path}" is still there'))
def clone_still_there(world: World, path: str) -> None:
    assert (_clone(world, path) / ".git").is_dir()


@when(
    parsers.parse(
        'the index is built, and the clone of "{path}" becomes unreadable once it is fetched'
    )
)
def built_while_clone_unreadable(world: World, path: str) -> None:
    clone = _clone(world, path)

    def unreadable() -> None:
        # A name past NAME_MAX fails to look up as a directory the user may not read does,
        # even for root, which reads through any permission.
        shutil.rmtree(clone)
        clone.symlink_to(clone.parent / ("x" * 300))

    build_changing(world, path, unreadable)


_CORRUPTED = (
    'the index is built, and the new page in the clone of "{path}" is corrupted once it is fetched'
)


@when(parsers.parse(_CORRUPTED))
def built_while_clone_corrupt(world: World, forge: FakeGitLab, path: str) -> None:
    _build_corrupting(world, forge, path, refused=False)


@when(parsers.parse(_CORRUPTED + ", and GitLab then refuses git"))
def built_while_clone_corrupt_and_refused(world: World, forge: FakeGitLab, path: str) -> None:
    _build_corrupting(world, forge, path, refused=True)


def _build_corrupting(world: World, forge: FakeGitLab, path: str, *, refused: bool) -> None:
    """Build, corrupting the new page's blob in the clone once fetched: only reading finds it."""
    clone = _clone(world, path)
    blob = git(forge.repo_dir(path), "rev-parse", "HEAD:docs/news.md")

    def corrupt() -> None:
        corrupt_packed_object(clone, blob)
        if refused:  # the fresh clone is refused
            forge.rules.append(Rule(r"\.git/", status=403))

    build_changing(world, path, corrupt)


@pytest.fixture
def transfers(monkeypatch: pytest.MonkeyPatch) -> Transfers:
    """The fetches and clones made again of a build, every fetch but acme/handbook's held."""
    return Transfers(monkeypatch, "acme/handbook")


@when(
    parsers.parse(
        "the index is built with the other fetches held open, and the new page in the clone "
        'of "{path}" is corrupted once it is fetched'
    )
)
def built_beside_held_fetches(
    world: World, forge: FakeGitLab, transfers: Transfers, path: str
) -> None:
    clone = _clone(world, path)
    blob = git(forge.repo_dir(path), "rev-parse", "HEAD:docs/news.md")
    corrupting = ChangedAsItStarts(path, lambda: corrupt_packed_object(clone, blob))

    async def build() -> str:
        config = config_module.load(None, os.environ, world.root)
        async with await Engine.open(config) as engine:
            report = await refresh_beside_two(engine, transfers, corrupting)
        return render.json_text(render.refresh_json(report))

    world.stdout = asyncio.run(build())


@then(parsers.parse('the clone of "{path}" was made again'))
def clone_made_again(transfers: Transfers, path: str) -> None:
    assert transfers.name == path and transfers.cloning_again.is_set()


@then("no more than two transfers from GitLab were under way at once")
def two_transfers_at_most(transfers: Transfers) -> None:
    assert transfers.most == 2  # both held fetches were under way, and nothing beside them


@given("a file stands where the clones directory should be")
def clones_blocked(world: World) -> None:
    shutil.rmtree(world.root / "clones")
    (world.root / "clones").write_text("not a directory\n")


@given(parsers.parse('GitLab lists the namespace of "{path}" as a plain string'))
def malformed_namespace(forge: FakeGitLab, path: str) -> None:
    forge.project(path).malformed = {"namespace": path.rpartition("/")[0]}


@given(parsers.parse('GitLab lists the id of "{path}" as {value}'))
def malformed_id(forge: FakeGitLab, path: str, value: str) -> None:
    forge.project(path).malformed = {"id": json.loads(value)}  # as JSON writes it


@given("GitLab lists its projects without saying whether they are public or archived")
def listing_without_visibility(forge: FakeGitLab) -> None:
    for project in forge.projects:
        project.omits = ("visibility", "archived")


@given("a sign-in page answers the group listing in GitLab's place")
def sign_in_page(forge: FakeGitLab) -> None:
    page = "<!DOCTYPE html>\n<html><title>Sign in</title></html>\n"
    forge.rules.append(Rule(r"/groups/[^/]+/projects", status=200, body=page))


@given(parsers.parse('"{path}" has a new commit'))
def new_commit(forge: FakeGitLab, path: str) -> None:
    push(forge, path, {"docs/news.md": "# News\n\nA new page.\n"})


@given("a sign-in page answers GitLab's file reads in its place")
def sign_in_page_for_files(forge: FakeGitLab) -> None:
    page = "<!DOCTYPE html>\n<html><title>Sign in</title></html>\n"
    forge.rules.append(Rule(r"/repository/files/.*/raw", status=200, body=page))


@given("nothing listens where gitlab.url.api points")
def api_unreachable(world: World, forge: FakeGitLab) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        nowhere = f"http://127.0.0.1:{closed.getsockname()[1]}/api/v4"
    path = world.root / "phpbotscout.toml"
    path.write_text(path.read_text().replace(f'api = "{forge.api}"', f'api = "{nowhere}"'))


@given("the forge rate-limits every request")
def rate_limited(forge: FakeGitLab) -> None:
    forge.rules.append(Rule(r"^/", status=429, headers={"Retry-After": "60"}))


@given(parsers.parse("the forge rate-limits every request until the year {year:d}"))
def rate_limited_until(forge: FakeGitLab, year: int) -> None:
    until = f"Thu, 01 Jan {year} 00:00:00 GMT"
    forge.rules.append(Rule(r"^/", status=429, headers={"Retry-After": until}))


@given(parsers.parse("GitLab answers the group listing with {status:d}"))
def refuses_listing(forge: FakeGitLab, status: int) -> None:
    forge.rules.append(Rule(r"/groups/[^/]+/projects$", status=status))


@given("GitLab answers as it should again")
def answers_again(forge: FakeGitLab) -> None:
    forge.rules.clear()


@given(parsers.parse("GitLab answers git with {status:d}"))
def refuses_git(forge: FakeGitLab, status: int) -> None:
    forge.rules.append(Rule(r"\.git/", status=status))


@given(
    parsers.re(
        r"clones go over SSH, and "
        r"(?P<refusal>GitLab refuses the key|no host key is pinned for GitLab)"
    )
)
def ssh_refused(world: World, monkeypatch: pytest.MonkeyPatch, refusal: str) -> None:
    key, known = world.root / "id_ed25519", world.root / "known_hosts"
    key.write_text("not a real key\n")
    known.write_text("gitlab.example ssh-ed25519 AAAA\n")
    path = world.root / "phpbotscout.toml"
    path.write_text(path.read_text() + f'[index.ssh]\nkey = "{key}"\nknown_hosts = "{known}"\n')
    said = KEY_REFUSED if refusal.endswith("the key") else HOST_KEY_UNKNOWN
    refusing_ssh(world.root / "bin", world.root / "ssh.log", said, monkeypatch)


@given("GitLab's git stops sending anything for longer than git waits")
def git_stalls(forge: FakeGitLab, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("bot.clones.LOW_SPEED_TIME", 1)  # give up after 1 s, not 30
    forge.rules.append(Rule(r"\.git/info/refs", delay=8))


@dataclass
class HeldClone:
    """A clone the fake forge never answers, and the processes of the build it holds."""

    rule: Rule = field(default_factory=lambda: Rule("", release=threading.Event()))
    processes: list[Process] = field(default_factory=list)


@pytest.fixture
def held_clone() -> HeldClone:
    return HeldClone()


@given(parsers.parse('GitLab has a new project "{path}" whose clone never finishes'))
def clone_never_finishes(forge: FakeGitLab, held_clone: HeldClone, path: str) -> None:
    forge_project(forge, "public", path, "with")
    forge.feed.append(path)
    held_clone.rule.pattern = rf"^/{re.escape(path)}\.git/git-upload-pack$"
    forge.rules.append(held_clone.rule)


@when(parsers.parse('I start {command} and send it SIGTERM while git clones "{path}"'))
def terminate_mid_clone(world: World, held_clone: HeldClone, command: str, path: str) -> None:
    build = start_cli(cli_arguments(command), cwd=world.root)
    try:
        # Once the forge has the clone's request, git waits for an answer that never comes.
        deadline = time.monotonic() + 60
        while not held_clone.rule.arrived.wait(0.1):  # polls for the build's end, no more
            assert build.poll() is None, "the build ended before git asked for the clone"
            assert time.monotonic() < deadline, "git never asked for the clone"
        held_clone.processes = descendants(build.pid)
        os.kill(build.pid, signal.SIGTERM)
    finally:
        # Well within the 30 s after which git would give up on the stalled clone by itself.
        world.code, world.stderr = exited(build, "stop on SIGTERM while git clones", timeout=15)


@then(parsers.parse('the clone of "{path}" never finished, and nothing of it is left'))
def clone_left_nothing(world: World, held_clone: HeldClone, path: str) -> None:
    assert held_clone.rule.release is not None and not held_clone.rule.release.is_set()
    left = sorted(p.name for p in (world.root / "clones").iterdir())
    assert quote(path, safe="") not in left
    assert [name for name in left if name.startswith("+") and name != "+lock"] == []


@then("no git process the build started is left")
def no_git_left(held_clone: HeldClone) -> None:
    assert any(" clone " in p.command for p in held_clone.processes), held_clone.processes
    assert [p for p in held_clone.processes if p.running()] == []


@then(
    parsers.re(
        r'source "(?P<name>[^"]+)" still holds passages, '
        r'its (?P<field>detail|last error) saying "(?P<text>.+)"'
    )
)
def still_holds(world: World, name: str, field: str, text: str) -> None:
    rows = {row["source"]: row for row in world.json()["sources"]}
    said = " ".join((rows[name][field.replace(" ", "_")] or "").split())
    assert rows[name]["chunks"] > 0 and text in said, rows[name]


@then(parsers.parse('the build lists "{name}" once'))
def built_once(world: World, name: str) -> None:
    built = [row["source"] for row in world.json()["sources"]]
    assert built.count(name) == 1, built


@then(parsers.parse('the sources list "{name}" once'))
def listed_once(world: World, name: str) -> None:
    rows = [row["source"] for row in world.json()]
    assert rows.count(name) == 1, rows


@then(parsers.parse('the table explains "{text}"'))
def table_explains(world: World, text: str) -> None:
    cells = [line.split("│")[4] for line in world.stdout.splitlines() if line.count("│") == 5]
    assert text in " ".join(" ".join(cells).split()), world.stdout


@then(parsers.parse('the forge saw no request about "{path}"'))
def no_request(forge: FakeGitLab, path: str) -> None:
    assert forge.requests_for(forge.project(path)) == []


@then(parsers.parse('there is no clone of "{path}"'))
def no_clone(world: World, path: str) -> None:
    assert not _clone(world, path).exists()
    assert (world.root / "clones").is_dir()


@when("the index is built again")
def built_again(world: World, forge: FakeGitLab, capsys: pytest.CaptureFixture[str]) -> None:
    forge.clear_log()
    world.code = main(["index", "build"])
    captured = capsys.readouterr()
    world.stdout, world.stderr = captured.out, captured.err


@then("the last build asked no docs site")
def no_site_asked(forge: FakeGitLab) -> None:
    assert not [r for r in forge.log if r.path.startswith("/sites/")]


@then("the last build read no site config")
def no_site_config_read(forge: FakeGitLab) -> None:
    assert not [r.path for r in forge.log if "/repository/files/" in r.path]


@then("the last build made one request to each indexed repository and nothing else about it")
def one_request_per_source(world: World, forge: FakeGitLab) -> None:
    indexed = [p for p in forge.projects if p.path in ("acme/handbook", "acme/go/config")]
    for project in indexed:
        requests = [(r.method, r.path) for r in forge.requests_for(project)]
        assert requests == [("GET", f"/{project.path}.git/info/refs")], requests
    assert not [r for r in forge.log if r.path.startswith("/sites/")]


@then("the last build made one request each for the feed, the listing and the releases")
def shared_requests(forge: FakeGitLab) -> None:
    shared = sorted(r.path.rpartition("/")[2] for r in forge.log if not r.is_git)
    assert shared == ["feed.json", "projects", "releases"], shared


@then(parsers.parse('status of "{name}" names its release "{tag}"'))
def status_release(world: World, name: str, tag: str) -> None:
    rows = {row["source"]: row for row in world.json()["sources"]}
    assert rows[name]["release_tag"] == tag, rows[name]
    assert not rows[name]["release_error"], rows[name]


@then(parsers.parse('the status names the failed listing of "{group}", which said "{text}"'))
def status_listing_failure(world: World, group: str, text: str) -> None:
    failure = world.json()["listing_failure"]
    assert failure["group"] == group and text in failure["said"], failure
    assert datetime.fromisoformat(failure["at"]).tzinfo is not None, failure


@then("the status names no failed listing")
def status_no_listing_failure(world: World) -> None:
    assert world.json()["listing_failure"] is None


def _rows(world: World) -> dict[str, dict[str, Any]]:
    """Each source's row, from index status's object or index sources' array."""
    data = world.json()
    rows = data["sources"] if isinstance(data, dict) else data
    return {row["source"]: row for row in rows}


@then(parsers.re(r'the (?P<kind>release|last) error of "(?P<name>[^"]+)" says "(?P<text>.+)"'))
def error_says(world: World, kind: str, name: str, text: str) -> None:
    rows = _rows(world)
    assert text in (rows[name][f"{kind}_error"] or ""), rows[name]


@then(parsers.re(r'"(?P<name>[^"]+)" has no (?P<kind>release|last) error'))
def no_error(world: World, name: str, kind: str) -> None:
    rows = _rows(world)
    assert rows[name][f"{kind}_error"] is None, rows[name]


@then(parsers.parse('a passage contains "{text}" cited at release "{tag}" of "{path}"'))
def passage_at_release(world: World, forge: FakeGitLab, text: str, tag: str, path: str) -> None:
    tagged = git(forge.repo_dir(path), "rev-parse", f"{tag}^{{commit}}")
    found = [r for r in world.json()["results"] if text in r["text"]]
    assert found and all(r["commit"] == tagged for r in found), found


@then(parsers.parse("GitLab was asked for {count:d} page of the group's releases"))
def release_pages(forge: FakeGitLab, count: int) -> None:
    pages = [r for r in forge.log if r.path.startswith("/api/v4/groups/") and "/releases" in r.path]
    assert len(pages) == count, pages


@then(parsers.parse('status of "{name}" names its default branch "{branch}"'))
def status_branch(world: World, name: str, branch: str) -> None:
    rows = {row["source"]: row for row in world.json()["sources"]}
    assert rows[name]["default_branch"] == branch
    assert rows[name]["branch_commit"]
    assert rows[name]["indexed_at"]
