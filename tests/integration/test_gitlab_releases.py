"""Latest releases for the whole group against the fake GitLab: what it costs, and fallbacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import Secret
from bot.engine import Engine
from bot.errors import RateLimited
from bot.forge.base import NO_RELEASE, Release, Unknown
from bot.forge.gitlab import GitLabForge
from tests.fakes.estate import configure, upstream
from tests.fakes.gitlab import FakeGitLab, FakeProject, Logged, Rule
from tests.integration.conftest import TOKEN

README = {"README.md": "# Project\n\nIt does things.\n"}


def _listed(fake: FakeGitLab, specs: dict[str, str | int | None], older: int = 0) -> None:
    """Projects with no repository: the release lookups need only the API."""
    for path, tag in specs.items():
        past = tuple(f"v0.{n}" for n in range(older)) if isinstance(tag, str) else ()
        fake.add(FakeProject(len(fake.projects) + 1, path, release=tag, older_releases=past))


async def _latest(fake: FakeGitLab) -> dict[str, object]:
    async with GitLabForge(fake.api, Secret(TOKEN)) as forge:
        projects = await forge.group_projects(fake.group)
        answers = await forge.latest_releases(fake.group, projects)
    return {p.path: answers[p.id] for p in projects}


def _group_pages(fake: FakeGitLab) -> list[Logged]:
    return [r for r in fake.log if r.path.endswith("/releases") and "/groups/" in r.path]


def _one_by_one(fake: FakeGitLab) -> list[Logged]:
    return [r for r in fake.log if r.path.endswith("/permalink/latest")]


ESTATE: dict[str, str | int | None] = {
    "acme/handbook": "v2.0",
    "acme/tools": None,
    "acme/go/lib": "v1.3",
    "acme/go/family/cache": None,
}
EXPECTED = {
    "acme/handbook": Release("v2.0"),
    "acme/tools": NO_RELEASE,
    "acme/go/lib": Release("v1.3"),
    "acme/go/family/cache": NO_RELEASE,
}


async def test_one_request_answers_for_the_whole_group(fake: FakeGitLab):
    _listed(fake, ESTATE, older=3)
    assert await _latest(fake) == EXPECTED
    (page,) = _group_pages(fake)
    assert page.path == "/api/v4/groups/1000/releases"  # the numeric id, from the listing
    assert page.private_token == TOKEN
    assert _one_by_one(fake) == []


async def test_every_page_is_read_while_a_project_may_still_have_a_release(fake: FakeGitLab):
    _listed(fake, ESTATE, older=3)
    fake.page_size = 3  # 8 releases: 3 pages, fewer than the 2 projects still unseen + 1
    assert await _latest(fake) == EXPECTED
    assert len(_group_pages(fake)) == 3
    assert _one_by_one(fake) == []


async def test_reading_stops_once_every_project_has_been_seen(fake: FakeGitLab):
    _listed(fake, {f"acme/p{i}": f"v{i}.0" for i in range(4)}, older=5)
    fake.page_size = 4  # newest first: the four latest releases fill page one of six
    answers = await _latest(fake)
    assert answers == {f"acme/p{i}": Release(f"v{i}.0") for i in range(4)}
    assert len(_group_pages(fake)) == 1


async def test_a_listing_longer_than_asking_is_abandoned_for_one_by_one_lookups(fake: FakeGitLab):
    _listed(fake, {"acme/a": "v1.0", "acme/b": None, "acme/c": None}, older=12)
    fake.page_size = 2  # 13 releases, 7 pages: asking the two others is cheaper than 6 more
    answers = await _latest(fake)
    assert answers == {"acme/a": Release("v1.0"), "acme/b": NO_RELEASE, "acme/c": NO_RELEASE}
    assert len(_group_pages(fake)) == 1
    assert sorted(r.path for r in _one_by_one(fake)) == [
        "/api/v4/projects/2/releases/permalink/latest",
        "/api/v4/projects/3/releases/permalink/latest",
    ]


async def test_without_totals_no_more_pages_are_read_than_there_are_projects(fake: FakeGitLab):
    _listed(fake, {"acme/a": "v1.0", "acme/b": None}, older=12)
    fake.page_size = 1
    fake.omit_totals = True
    answers = await _latest(fake)
    assert answers == {"acme/a": Release("v1.0"), "acme/b": NO_RELEASE}
    assert len(_group_pages(fake)) == 2
    assert len(_one_by_one(fake)) == 1


@pytest.mark.parametrize(
    ("endless", "pages", "says"),
    [
        ("again", 1, "names page 1 again after page 1"),
        ("back", 2, "names page 1 again after page 2"),
    ],
)
async def test_a_release_listing_that_never_ends_is_left_at_once_for_one_by_one_lookups(
    fake: FakeGitLab, caplog: pytest.LogCaptureFixture, endless, pages, says
):
    # Four releases of acme/a, two a page, and five projects that never show up in them: only
    # the page counts GitLab leaves out would have bounded the reading.
    _listed(fake, {"acme/a": "v1.0", **{f"acme/{n}": None for n in "bcdef"}}, older=3)
    fake.page_size = 2
    fake.omit_totals = True
    fake.endless_releases = endless
    answers = await _latest(fake)
    assert answers == {"acme/a": Release("v1.0"), **{f"acme/{n}": NO_RELEASE for n in "bcdef"}}
    assert len(_group_pages(fake)) == pages
    assert len(_one_by_one(fake)) == 5
    assert f"the release listing of acme {says}, so it would never end" in caplog.text


@pytest.mark.parametrize("status", [403, 404, 500])
async def test_a_refused_listing_falls_back_to_one_lookup_per_project(fake: FakeGitLab, status):
    _listed(fake, ESTATE)
    fake.group_releases = status
    assert await _latest(fake) == EXPECTED
    assert len(_one_by_one(fake)) == len(ESTATE)


async def test_an_unreadable_listing_falls_back_to_one_lookup_per_project(fake: FakeGitLab):
    _listed(fake, ESTATE)
    fake.rules = [Rule(r"/groups/[^/]+/releases$", status=200)]  # an object, not a list
    assert await _latest(fake) == EXPECTED
    assert len(_one_by_one(fake)) == len(ESTATE)


async def test_a_listing_that_never_answers_makes_every_release_unknown_without_asking_more(
    fake: FakeGitLab,
):
    _listed(fake, ESTATE)
    fake.rules = [Rule(r"/groups/[^/]+/releases$", delay=5.0)]
    async with GitLabForge(fake.api, Secret(TOKEN), timeout=0.5) as forge:
        projects = await forge.group_projects(fake.group)
        answers = await forge.latest_releases(fake.group, projects)
    assert all(isinstance(answers[p.id], Unknown) for p in projects)
    assert _one_by_one(fake) == []  # the same host: asking each would only wait again


async def test_an_older_gitlab_without_subgroups_or_paths_gets_the_same_answers(fake: FakeGitLab):
    _listed(fake, {"acme/handbook": "v2.0", "acme/go/lib": "v1.3", "acme/go/other": None})
    fake.releases_include_subgroups = False
    fake.group_releases_by_path = False
    assert await _latest(fake) == {
        "acme/handbook": Release("v2.0"),
        "acme/go/lib": Release("v1.3"),
        "acme/go/other": NO_RELEASE,
    }
    assert len(_group_pages(fake)) == 1
    assert sorted(r.path for r in _one_by_one(fake)) == [
        "/api/v4/projects/2/releases/permalink/latest",
        "/api/v4/projects/3/releases/permalink/latest",
    ]


async def test_without_a_project_at_the_top_the_group_is_named_by_its_path(fake: FakeGitLab):
    _listed(fake, {"acme/go/lib": "v1.3", "acme/go/other": None})
    assert await _latest(fake) == {"acme/go/lib": Release("v1.3"), "acme/go/other": NO_RELEASE}
    assert [r.path for r in _group_pages(fake)] == ["/api/v4/groups/acme/releases"]


async def test_a_release_whose_tag_is_hidden_is_a_failed_lookup(fake: FakeGitLab):
    _listed(fake, {"acme/handbook": "v2.0", "acme/secretive": 403})
    answers = await _latest(fake)
    assert answers["acme/handbook"] == Release("v2.0")
    assert isinstance(answers["acme/secretive"], Unknown)
    assert "403" in answers["acme/secretive"].reason
    assert [r.path for r in _one_by_one(fake)] == ["/api/v4/projects/2/releases/permalink/latest"]


async def test_a_rate_limited_listing_stops_the_run(fake: FakeGitLab):
    _listed(fake, ESTATE)
    fake.rules = [Rule(r"/groups/[^/]+/releases$", status=429, headers={"Retry-After": "5"})]
    with pytest.raises(RateLimited, match="wait 5 s"):
        await _latest(fake)


async def test_a_rate_limit_on_a_fallback_lookup_stops_the_run(fake: FakeGitLab):
    _listed(fake, ESTATE)
    fake.group_releases = 403
    fake.rules = [Rule(r"/permalink/latest$", status=429, skip=1)]
    with pytest.raises(RateLimited):
        await _latest(fake)


async def test_an_unchanged_rebuild_costs_one_request_per_source(tmp_path: Path, fake: FakeGitLab):
    upstream(fake, "acme/handbook", {**README, "docs/index.md": "# Handbook\n"}, release="v1.0")
    upstream(fake, "acme/manual", {**README, "docs/index.md": "# Manual\n"})
    upstream(fake, "acme/go/lib", README, site=False, release="v0.3.0")
    upstream(fake, "acme/go/cache", README, site=False)
    fake.feed = [p.path for p in fake.projects]
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        first = await engine.refresh()
        assert {o.status for o in first.outcomes} == {"indexed"}
        fake.clear_log()
        second = await engine.refresh()
        tags = {s.state.name: s.state.release_tag for s in await engine.status()}
    assert {o.status for o in second.outcomes} == {"unchanged"}
    assert tags == {
        "acme/handbook": "v1.0",
        "acme/manual": None,
        "acme/go/lib": "v0.3.0",
        "acme/go/cache": None,
    }
    for project in fake.projects:
        requests = [(r.method, r.path) for r in fake.requests_for(project)]
        assert requests == [("GET", f"/{project.path}.git/info/refs")], requests
    shared = sorted(r.path for r in fake.log if not r.is_git)
    assert shared == [
        "/api/v4/groups/1000/releases",
        "/api/v4/groups/acme/projects",
        "/feed.json",
    ]
