"""Discovery against the fake GitLab: every clause, pagination, unknown facts, rate limits."""

from __future__ import annotations

import json
import socket
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest

from bot.config import Secret
from bot.engine import Engine
from bot.errors import RateLimited
from bot.forge.gitlab import FEED_LIMIT, GitLabForge
from bot.refresh import refresh
from tests.fakes.estate import configure, push, upstream
from tests.fakes.gitlab import FakeGitLab, Rule
from tests.integration.conftest import TOKEN

README = {"README.md": "# Project\n\nIt does things.\n"}


def _verdicts(states) -> dict[str, tuple[str, str]]:
    return {s.name: (s.verdict, s.clause) for s in states}


def _estate(fake: FakeGitLab) -> None:
    upstream(fake, "acme/handbook", {**README, "docs/index.md": "# Handbook\n\nHello.\n"})
    upstream(fake, "acme/go/config", README, site=False)
    upstream(fake, "acme/go/family/cache", README, site=False)
    upstream(fake, "acme/tools", README, site=False)
    # Satisfies every clause but one: each must be rejected by exactly that clause.
    upstream(fake, "acme/infra", README)
    upstream(fake, "acme/unlisted", README)
    upstream(fake, "acme/secret", README, visibility="private")
    upstream(fake, "acme/old", README, archived=True)
    upstream(fake, "acme/pagesoff", README, pages_access_level="disabled")
    upstream(fake, "acme/deadsite", README)
    fake.sites["deadsite"] = 404
    upstream(
        fake,
        "acme/nourl",
        {**README, "zensical.toml": '[project]\nsite_name = "x"\n'},
        site=False,
    )
    upstream(
        fake,
        "acme/mk",
        {**README, "mkdocs.yml": f"site_name: mk\nsite_url: {fake.site_url('mk')}\n"},
        site=False,
    )
    fake.sites["mk"] = 200
    upstream(fake, "other/borrowed", README, shared=True, namespace="other")
    fake.feed = [p.path for p in fake.projects if p.path != "acme/unlisted"] + [
        {"path": "acme/empty"}
    ]
    fake.add(type(fake.projects[0])(99, "acme/empty", empty_repo=True, default_branch=None))


async def test_every_clause_decides_and_is_recorded(tmp_path: Path, fake: FakeGitLab):
    _estate(fake)
    fake.honour_with_shared = False  # a server that lists shared projects anyway
    config = configure(tmp_path, fake, token=TOKEN, sources={"exclude": ["infra"]})
    async with await Engine.open(config) as engine:
        report = await engine.refresh()
        states = await engine.sources()
        verdicts = _verdicts(states)
    # Each project is shown where people find it on the forge: its web page.
    assert {s.name: s.location for s in states}["acme/handbook"] == f"{fake.url}/acme/handbook"
    assert verdicts == {
        "acme/handbook": ("admitted", "site"),
        "acme/go/config": ("admitted", "siteless"),
        "acme/go/family/cache": ("admitted", "siteless"),
        "acme/mk": ("admitted", "site"),
        "acme/tools": ("rejected", "site"),
        "acme/infra": ("rejected", "excluded"),
        "acme/unlisted": ("rejected", "feed"),
        "acme/secret": ("rejected", "visibility"),
        "acme/old": ("rejected", "archived"),
        "acme/pagesoff": ("rejected", "site"),
        "acme/deadsite": ("rejected", "site"),
        "acme/nourl": ("rejected", "site"),
        "other/borrowed": ("rejected", "group"),
        "acme/empty": ("rejected", "empty"),
    }
    assert sorted(o.name for o in report.outcomes) == [
        "acme/go/config",
        "acme/go/family/cache",
        "acme/handbook",
        "acme/mk",
    ]
    assert all(o.status == "indexed" for o in report.outcomes)
    # Excluded and unlisted projects are never asked about: no file, no release, no git.
    for path in ("acme/infra", "acme/unlisted", "acme/secret", "acme/old"):
        assert fake.requests_for(fake.project(path)) == [], path
    assert not (tmp_path / "clones" / "acme%2Finfra").exists()
    # The listing asks GitLab for subgroups and no shared projects.
    listing = [r for r in fake.log if r.path.endswith("/projects")]
    assert listing and all("with_shared=false" in r.query for r in listing)
    assert all("include_subgroups=true" in r.query for r in listing)


async def test_an_excluded_project_stays_out_whatever_else_becomes_true(tmp_path, fake):
    upstream(fake, "acme/infra", README, visibility="private")
    fake.feed = ["acme/infra"]
    config = configure(tmp_path, fake, token=TOKEN, sources={"exclude": ["ACME/Infra/"]})
    async with await Engine.open(config) as engine:
        await engine.refresh()
        fake.project("acme/infra").visibility = "public"  # it becomes public later
        await engine.refresh()
        assert _verdicts(await engine.sources()) == {"acme/infra": ("rejected", "excluded")}
    assert fake.requests_for(fake.project("acme/infra")) == []


async def test_pagination_follows_next_page_without_totals(tmp_path, fake):
    for i in range(7):
        upstream(fake, f"acme/p{i}", README)
    fake.feed = [p.path for p in fake.projects]
    fake.page_size = 2
    fake.omit_totals = True
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        assert len(await engine.sources()) == 7
    pages = [r for r in fake.log if r.path.endswith("/projects")]
    assert len(pages) == 4


@pytest.mark.parametrize(
    ("endless", "omit_totals", "says", "requests"),
    [
        ("onward", False, "names page 5 after announcing 4 pages", 4),
        ("onward", True, "names page 6 after an empty page 5", 5),
        ("repeat", True, "serves on page 2 only projects it listed before", 2),
    ],
)
async def test_a_listing_that_never_ends_stops_at_once_and_changes_nothing(
    tmp_path, fake, endless, omit_totals, says, requests
):
    for i in range(7):
        upstream(fake, f"acme/p{i}", README)
    fake.feed = [p.path for p in fake.projects]
    fake.page_size = 2
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        before = await engine.sources()
        fake.log.clear()
        fake.endless_pages = endless
        fake.omit_totals = omit_totals
        report = await engine.refresh()
        assert any(says in e and "never end" in e for e in report.errors), report.errors
        assert [s.verdict for s in await engine.sources()] == [s.verdict for s in before]
    assert len([r for r in fake.log if r.path.endswith("/projects")]) == requests


@dataclass(frozen=True)
class Relisted:
    """Two projects indexed, then listed again after a change: what that second run did."""

    errors: tuple[str, ...]
    verdicts_kept: bool
    clones_kept: bool


async def _relisted(tmp_path, fake, change) -> Relisted:
    upstream(fake, "acme/handbook", README)
    upstream(fake, "acme/tools", README)
    fake.feed = ["acme/handbook", "acme/tools"]
    clones = tmp_path / "clones"
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        verdicts, cloned = _verdicts(await engine.sources()), sorted(clones.iterdir())
        change()
        report = await engine.refresh()
        return Relisted(
            report.errors,
            _verdicts(await engine.sources()) == verdicts,
            sorted(clones.iterdir()) == cloned,
        )


@pytest.mark.parametrize(
    "broken",
    [
        {"namespace": "acme"},
        {"id": "seven"},
        {"path_with_namespace": None, "namespace": [1]},
        {"path_with_namespace": None},
        {"visibility": None},
        {"archived": "false"},
    ],
)
async def test_a_malformed_listing_item_is_a_one_line_error_that_changes_nothing(
    tmp_path, fake, broken
):
    def break_tools() -> None:
        fake.project("acme/tools").malformed = broken

    relisted = await _relisted(tmp_path, fake, break_tools)
    assert len(relisted.errors) == 1
    assert (
        "project listing of 'acme' is not what it should be: item 2 of page 1"
        in (relisted.errors[0])
    )
    assert "\n" not in relisted.errors[0]
    assert relisted.verdicts_kept


@pytest.mark.parametrize(
    ("served", "shape"),
    [("7", "a str"), (2.0, "a float"), (True, "a bool"), (None, "missing or null")],
)
async def test_a_project_id_that_is_not_a_json_integer_fails_the_listing(
    tmp_path, fake, served, shape
):
    # True is an int to Python, and would be read as the id of acme/handbook, project 1.
    def break_id() -> None:
        fake.project("acme/tools").malformed = {"id": served}

    relisted = await _relisted(tmp_path, fake, break_id)
    assert relisted.errors == (
        "GitLab discovery failed: GitLab's project listing of 'acme' is not what it should "
        f"be: item 2 of page 1: acme/tools: 'id' is {shape}, not a project id. The previous "
        "verdicts, index and clones are kept.",
    )
    assert relisted.verdicts_kept and relisted.clones_kept


async def test_a_listing_that_leaves_out_visibility_or_archiving_rejects_nothing(tmp_path, fake):
    # Not being told a project is public, or not archived, is not being told the opposite.
    def omit_facts() -> None:
        for project in fake.projects:
            project.omits = ("visibility", "archived", "pages_access_level", "empty_repo")

    relisted = await _relisted(tmp_path, fake, omit_facts)
    assert relisted.errors == (
        "GitLab discovery failed: GitLab's project listing of 'acme' is not what it should "
        "be: item 1 of page 1: acme/handbook: 'visibility' is missing or null, not a "
        "visibility level. The previous verdicts, index and clones are kept.",
    )
    assert relisted.verdicts_kept and relisted.clones_kept


async def test_a_shared_project_is_not_listed_when_the_server_honours_with_shared(tmp_path, fake):
    upstream(fake, "other/borrowed", README, shared=True, namespace="other")
    upstream(fake, "acme/own", README)
    fake.feed = ["acme/own", "other/borrowed"]
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        assert set(_verdicts(await engine.sources())) == {"acme/own"}


async def test_facts_that_cannot_be_checked_leave_the_verdict_unresolved(tmp_path, fake):
    upstream(fake, "acme/a", README)
    upstream(fake, "acme/b", README, pages_access_level=None)  # the listing does not say
    upstream(fake, "acme/c", README)
    upstream(fake, "acme/secret", README, visibility="private")
    fake.feed = ["acme/a", "acme/b", "acme/c", "acme/secret"]
    fake.rules = [
        Rule(r"/projects/1/repository/files/", status=500),
        Rule(r"^/sites/c/", status=503),
    ]
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        states = {s.name: s for s in await engine.sources()}
    assert {n: (s.verdict, s.clause) for n, s in states.items()} == {
        "acme/a": ("unresolved", "site"),
        "acme/b": ("unresolved", "site"),
        "acme/c": ("unresolved", "site"),
        "acme/secret": ("rejected", "visibility"),
    }
    assert "500" in states["acme/a"].detail
    assert "pages_access_level is None" in states["acme/b"].detail
    assert "503" in states["acme/c"].detail


async def test_an_unreadable_feed_resolves_nothing_and_rejects_only_known_failures(tmp_path, fake):
    upstream(fake, "acme/a", README)
    upstream(fake, "acme/secret", README, visibility="private")
    fake.feed = b"{not json"
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        assert _verdicts(await engine.sources()) == {
            "acme/a": ("unresolved", "feed"),
            "acme/secret": ("rejected", "visibility"),
        }
    assert fake.requests_for(fake.project("acme/a")) == []


@pytest.mark.parametrize("feed", [b"{not json", b"[]", 404], ids=["garbled", "empty", "missing"])
async def test_a_feed_that_cannot_be_used_fails_the_build_and_keeps_the_index(tmp_path, fake, feed):
    upstream(fake, "acme/a", README)
    fake.feed = ["acme/a"]
    config = configure(tmp_path, fake, token=TOKEN)
    async with await Engine.open(config) as engine:
        assert (await engine.refresh()).ok
    fake.feed = feed
    async with await Engine.open(config) as engine:
        report = await engine.refresh()
        assert not report.ok  # so `index build` exits 1 and a scheduler notices
        assert any("estate feed" in e and "index.feed.url" in e for e in report.errors)
        assert _verdicts(await engine.sources()) == {"acme/a": ("unresolved", "feed")}
        assert (await engine.retrieve("it does things")).results  # still answered from


async def test_a_feed_larger_than_any_estate_is_read_no_further_and_rejects_nothing(tmp_path, fake):
    upstream(fake, "acme/a", README)
    fake.feed = ["acme/a"]
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        filler = [f"acme/filler-{i:08d}" for i in range(FEED_LIMIT // 20)]
        fake.feed = json.dumps(["acme/a", *filler]).encode()
        assert len(fake.feed) > FEED_LIMIT
        report = await engine.refresh()
        [state] = await engine.sources()
    assert (state.verdict, state.clause) == ("unresolved", "feed")
    assert f"{fake.url}/feed.json sent more than 16 MiB" in state.detail
    assert len(report.errors) == 1
    assert "The estate feed (index.feed.url) could not be used" in report.errors[0]


async def test_a_feed_that_fails_is_named_without_the_token_in_its_address(tmp_path, fake):
    upstream(fake, "acme/a", README)
    fake.feed = 404
    feed = f"{fake.url}/feed.json?private_token=FEEDSECRET"
    config = configure(tmp_path, fake, token=TOKEN, index={"feed": {"url": feed}})
    async with await Engine.open(config) as engine:
        await engine.refresh()
        [state] = await engine.sources()
    assert (state.verdict, state.clause) == ("unresolved", "feed")
    assert f"{fake.url}/feed.json?*** answered HTTP 404" in state.detail
    database = sqlite3.connect(config.index_path)
    dump = "\n".join(database.iterdump())
    database.close()
    assert "FEEDSECRET" not in dump


async def test_a_slow_forge_makes_facts_unresolved_not_rejected(tmp_path, fake):
    upstream(fake, "acme/a", README)
    fake.feed = ["acme/a"]
    fake.rules = [Rule(r"/repository/files/", delay=0.5)]
    config = configure(tmp_path, fake, token=TOKEN)
    async with (
        GitLabForge(config.gitlab_api_url, Secret(TOKEN), timeout=0.1) as forge,
        await Engine.open(config) as engine,
    ):
        from bot.refresh import refresh

        await refresh(config, engine.store, forge=forge)
        (state,) = await engine.sources()
    assert (state.verdict, state.clause) == ("unresolved", "site")
    assert "in time" in state.detail


async def test_a_site_config_answered_by_a_web_page_keeps_the_project_and_its_index(tmp_path, fake):
    upstream(fake, "acme/a", README)
    fake.feed = ["acme/a"]
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        [indexed] = await engine.sources()
        assert (indexed.verdict, indexed.chunks > 0) == ("admitted", True)
        sign_in = "<!DOCTYPE html><html><body>Sign in</body></html>"
        push(fake, "acme/a", {"docs/more.md": "# More\n\nNew.\n"})  # a head whose config is unread
        fake.rules = [Rule(r"/repository/files/.*/raw", status=200, body=sign_in)]
        await engine.refresh()
        [state] = await engine.sources()
    assert (state.verdict, state.clause) == ("unresolved", "site")
    assert "answered a web page, not the file" in state.detail
    assert state.chunks == indexed.chunks  # its last index still answers


async def test_a_rate_limit_stops_discovery_and_keeps_the_previous_verdicts(tmp_path, fake):
    upstream(fake, "acme/a", README)
    fake.feed = ["acme/a"]
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        before = await engine.sources()
        fake.rules = [Rule(r"/groups/", status=429, headers={"Retry-After": "30"})]
        with pytest.raises(RateLimited, match="wait 30 s") as caught:
            await engine.refresh()
        assert caught.value.retry_after == 30
        after = await engine.sources()
        assert [(s.verdict, s.checked_at) for s in after] == [
            (s.verdict, s.checked_at) for s in before
        ]
        assert (await engine.retrieve("things")).results
    assert (tmp_path / "clones" / "acme%2Fa").is_dir()


@pytest.mark.parametrize(
    ("ahead", "says", "retry_after"),
    [
        (600, r"GitLab asks to wait 10 min \(until \d{4}-\d\d-\d\d \d\d:\d\d UTC\)", 600),
        (
            2300195378,
            r"GitLab asked to wait until 2099-\d\d-\d\d \d\d:\d\d UTC, more than a day away, "
            r"so try again later",
            None,
        ),
    ],
)
async def test_a_retry_after_date_is_said_as_a_readable_wait_and_an_absurd_one_is_not_taken(
    tmp_path, fake, ahead, says, retry_after
):
    upstream(fake, "acme/a", README)
    fake.feed = ["acme/a"]
    date = format_datetime(datetime.now(UTC) + timedelta(seconds=ahead), usegmt=True)
    fake.rules = [Rule(r"/groups/", status=429, headers={"Retry-After": date})]
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        with pytest.raises(RateLimited, match=says) as caught:
            await engine.refresh()
    assert "2300195378" not in str(caught.value)
    if retry_after is None:
        assert caught.value.retry_after is None
    else:
        assert retry_after - 5 < caught.value.retry_after <= retry_after


async def test_rate_limit_headers_with_nothing_left_stop_the_run(tmp_path, fake):
    upstream(fake, "acme/a", README)
    fake.feed = ["acme/a"]
    fake.rules = [Rule(r"/repository/files/", status=200, headers={"RateLimit-Remaining": "0"})]
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        with pytest.raises(RateLimited):
            await engine.refresh()


async def test_the_api_token_is_sent_as_private_token_and_never_to_the_site_or_feed(tmp_path, fake):
    upstream(fake, "acme/a", README)
    fake.feed = ["acme/a"]
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
    api = [r for r in fake.log if r.path.startswith("/api/")]
    others = [r for r in fake.log if not r.path.startswith("/api/") and not r.is_git]
    assert api and all(r.private_token == TOKEN for r in api)
    assert others and all(r.private_token is None and r.authorization is None for r in others)
    assert all(r.private_token is None for r in fake.log if r.is_git)


@pytest.mark.parametrize(
    ("status", "says"),
    [
        (401, "GITLAB_TOKEN is missing, wrong or expired. Set GITLAB_TOKEN, or renew the token"),
        (403, "lacks the read_api scope"),
        (502, "GitLab itself is failing; try again later"),
    ],
)
async def test_a_refused_or_failing_listing_says_what_to_do(tmp_path, fake, status, says):
    upstream(fake, "acme/a", README)
    fake.feed = ["acme/a"]
    fake.rules = [Rule(r"/groups/[^/]+/projects", status=status)]
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        report = await engine.refresh()
    assert not report.ok
    assert f"HTTP {status}" in report.errors[0]
    assert says in report.errors[0]
    assert TOKEN not in report.errors[0]


@pytest.mark.parametrize(
    ("rule", "says"),
    [
        (
            Rule(r"/groups/[^/]+/projects", status=200, body="<!DOCTYPE html>\n<title>Sign in"),
            "is a web page, not JSON",
        ),
        (
            Rule(
                r"/groups/[^/]+/projects",
                status=302,
                headers={"Location": "https://127.0.0.1/users/sign_in?redirect=x"},
                body="<html>You are being redirected.</html>",
            ),
            "redirects to https://127.0.0.1/users/sign_in?***, where no request of ours follows",
        ),
    ],
)
async def test_a_listing_answered_by_something_but_the_api_says_to_set_gitlab_url_api(
    tmp_path, fake, rule, says
):
    upstream(fake, "acme/a", README)
    fake.feed = ["acme/a"]
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        before = _verdicts(await engine.sources())
        fake.rules = [rule]
        report = await engine.refresh()
        assert _verdicts(await engine.sources()) == before
    assert len(report.errors) == 1
    assert f"GitLab's project listing of 'acme' {says}" in report.errors[0]
    assert "Set gitlab.url.api to GitLab's API root" in report.errors[0]
    assert "/api/v4" in report.errors[0]
    assert TOKEN not in report.errors[0]


async def test_a_listing_that_gets_no_answer_says_what_to_check(tmp_path, fake):
    upstream(fake, "acme/a", README)
    fake.feed = ["acme/a"]
    config = configure(tmp_path, fake, token=TOKEN)
    async with await Engine.open(config) as engine:
        await engine.refresh()
        before = _verdicts(await engine.sources())
        fake.rules = [Rule(r"/groups/[^/]+/projects", delay=0.5)]
        async with GitLabForge(config.gitlab_api_url, Secret(TOKEN), timeout=0.1) as forge:
            report = await refresh(config, engine.store, forge=forge)
        assert _verdicts(await engine.sources()) == before
    assert len(report.errors) == 1
    assert "GitLab did not answer /groups/acme/projects in time" in report.errors[0]
    assert "Check gitlab.url.api and that GitLab can be reached from here" in report.errors[0]
    assert "run the build again later" in report.errors[0]


async def test_a_forge_that_cannot_be_reached_says_what_to_check(tmp_path, fake):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    api = f"http://127.0.0.1:{port}/api/v4"
    config = configure(tmp_path, fake, token=TOKEN, gitlab={"url": {"api": api}})
    async with await Engine.open(config) as engine:
        report = await engine.refresh()
    assert len(report.errors) == 1
    assert "GitLab could not be reached for /groups/acme/projects" in report.errors[0]
    assert "Check gitlab.url.api and that GitLab can be reached from here" in report.errors[0]
    assert TOKEN not in report.errors[0]


async def test_a_failed_listing_is_still_reported_when_the_group_is_written_in_other_case(
    tmp_path, fake
):
    upstream(fake, "acme/a", README)
    fake.feed = ["acme/a"]
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        fake.rules = [Rule(r"/groups/[^/]+/projects", status=503)]
        await engine.refresh()
    # GitLab paths ignore letter case: "ACME" is the group whose listing failed.
    respelled = configure(tmp_path, fake, token=TOKEN, gitlab={"group": "ACME"})
    async with await Engine.open(respelled) as engine:
        failure = await engine.listing_failure()
    assert failure is not None and failure.group == "acme"
    other = configure(tmp_path, fake, token=TOKEN, gitlab={"group": "other"})
    async with await Engine.open(other) as engine:
        assert await engine.listing_failure() is None
