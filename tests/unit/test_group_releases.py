"""Reading the group's release listing: what it settles, and what it must leave to be asked."""

from __future__ import annotations

from typing import Any

from bot.forge.base import NO_RELEASE, Release
from bot.forge.releases import GroupReleaseTally
from tests.unit.test_predicate import project

ROOT = "https://gl.example"


def release(path: str, tag: str) -> dict[str, Any]:
    """One release as GitLab lists it (the fields that matter here)."""
    return {
        "name": tag,
        "tag_name": tag,
        "tag_path": f"/{path}/-/tags/{tag}",
        "_links": {"self": f"{ROOT}/{path}/-/releases/{tag}"},
    }


HANDBOOK = project("acme/handbook", id=1)
TOOLS = project("acme/tools", id=2)
LIB = project("acme/go/lib", id=3)


def test_the_first_release_of_a_project_is_its_latest():
    tally = GroupReleaseTally("acme", [HANDBOOK, TOOLS])
    tally.add_page([release("acme/handbook", "v2"), release("acme/handbook", "v1")])
    tally.add_page([release("acme/tools", "v9"), release("acme/handbook", "v0")])
    settled, ask = tally.answers(complete=True)
    assert settled == {1: Release("v2"), 2: Release("v9")}
    assert ask == []


def test_a_project_never_listed_has_no_release_only_when_the_listing_was_read_to_the_end():
    tally = GroupReleaseTally("acme", [HANDBOOK, TOOLS])
    tally.add_page([release("acme/handbook", "v2")])
    assert tally.answers(complete=True) == ({1: Release("v2"), 2: NO_RELEASE}, [])
    assert tally.answers(complete=False) == ({1: Release("v2")}, [TOOLS])


def test_a_subgroup_project_is_settled_only_once_the_listing_proves_it_covers_subgroups():
    tally = GroupReleaseTally("acme", [HANDBOOK, LIB])
    tally.add_page([release("acme/handbook", "v1")])
    # Older GitLab lists only the group's own projects: silence about acme/go/lib proves nothing.
    assert tally.answers(complete=True) == ({1: Release("v1")}, [LIB])
    # A release of any project in a subgroup (even one that is not ours) proves it.
    tally.add_page([release("acme/rust/other", "v3")])
    assert tally.answers(complete=True) == ({1: Release("v1"), 3: NO_RELEASE}, [])


def test_a_release_without_its_tag_is_asked_about_on_its_own():
    tally = GroupReleaseTally("acme", [HANDBOOK, TOOLS])
    hidden = release("acme/tools", "v1")
    del hidden["tag_name"]
    tally.add_page([hidden, release("acme/handbook", "v1"), release("acme/tools", "v0")])
    assert tally.answers(complete=True) == ({1: Release("v1")}, [TOOLS])


def test_after_a_release_naming_no_project_every_unseen_project_is_asked():
    tally = GroupReleaseTally("acme", [HANDBOOK, TOOLS])
    tally.add_page([release("acme/handbook", "v1"), {"name": "Release-7", "_links": {}}])
    assert tally.answers(complete=True) == ({1: Release("v1")}, [TOOLS])


def test_releases_are_matched_to_projects_whatever_the_case_and_the_forge_root_path():
    sub = "https://gl.example/gitlab"
    handbook = project("acme/handbook", id=1, web_url=f"{sub}/acme/handbook")
    lib = project("acme/go/lib", id=3, web_url=f"{sub}/acme/go/lib")
    tally = GroupReleaseTally("acme", [handbook, lib])
    item = {"tag_name": "v1", "_links": {"self": f"{sub}/ACME/Handbook/-/releases/v1"}}
    by_path = {"tag_name": "v2", "tag_path": "/gitlab/acme/go/lib/-/tags/v2"}
    tally.add_page(
        [item, by_path, {"tag_name": "v3", "_links": {"self": "https://x/y/-/releases/v3"}}]
    )
    assert tally.latest == {1: Release("v1"), 3: Release("v2")}
    assert tally.subgroups_listed


def test_reading_on_stops_when_everything_is_seen_or_asking_is_cheaper():
    projects = [project(f"acme/p{i}", id=i) for i in range(4)]
    tally = GroupReleaseTally("acme", projects)
    tally.add_page([release("acme/p0", "v1")])
    assert tally.worth_reading_on(total_pages=4)  # 3 pages left, 3 projects waiting
    assert not tally.worth_reading_on(total_pages=5)  # 4 pages left: asking 3 is cheaper
    assert tally.worth_reading_on(total_pages=None)  # unknown length: up to 4 pages
    tally.add_page([release(f"acme/p{i}", "v1") for i in range(1, 4)])
    assert not tally.worth_reading_on(total_pages=100)  # everyone seen: nothing can change
    unbounded = GroupReleaseTally("acme", projects[:2])
    unbounded.add_page([])
    unbounded.add_page([])
    assert not unbounded.worth_reading_on(total_pages=None)
    assert not unbounded.worth_reading_on(total_pages=2)  # a server that pages past its total


def test_a_page_that_is_not_a_list_of_releases_is_refused():
    tally = GroupReleaseTally("acme", [HANDBOOK])
    for page in ({"message": "x"}, ["not a release"]):
        try:
            tally.add_page(page)  # type: ignore[arg-type]
        except ValueError:
            continue
        raise AssertionError(page)
