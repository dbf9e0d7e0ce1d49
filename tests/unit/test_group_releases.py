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


def test_releases_after_one_already_seen_or_not_ours_are_still_read():
    tally = GroupReleaseTally("acme", [HANDBOOK, TOOLS])
    tally.add_page(
        [
            release("acme/handbook", "v2"),
            release("acme/handbook", "v1"),
            release("acme/elsewhere", "v7"),
            release("acme/tools", "v9"),
        ]
    )
    assert tally.latest == {1: Release("v2"), 2: Release("v9")}


def test_an_empty_tag_name_is_a_hidden_tag_not_a_release():
    tally = GroupReleaseTally("acme", [HANDBOOK, TOOLS])
    blank = release("acme/tools", "v1")
    blank["tag_name"] = ""
    tally.add_page([release("acme/handbook", "v1"), blank])
    assert tally.answers(complete=True) == ({1: Release("v1")}, [TOOLS])


def test_a_release_shown_only_by_its_link_names_its_project_and_its_subgroup():
    tally = GroupReleaseTally("acme", [HANDBOOK, LIB])
    other = {"tag_name": "v3", "_links": {"self": f"{ROOT}/acme/rust/other/-/releases/v3"}}
    tally.add_page([release("acme/handbook", "v1"), other])
    # Neither a release naming no project (which would leave LIB to be asked) nor silence about
    # subgroups: the link alone shows a subgroup's release, so LIB's silence is an answer.
    assert not tally.anonymous
    assert tally.answers(complete=True) == ({1: Release("v1"), 3: NO_RELEASE}, [])


def test_a_project_listed_without_its_web_address_is_always_asked_on_its_own():
    unnamed = project("acme/tools", id=2, web_url="")
    tally = GroupReleaseTally("acme", [HANDBOOK, unnamed])
    tally.add_page([release("acme/handbook", "v1"), release("acme/tools", "v4")])
    # Its release may well be in the listing; nothing there can be matched to it.
    assert not tally.worth_reading_on(total_pages=3)
    assert tally.answers(complete=True) == ({1: Release("v1")}, [unnamed])


def test_one_project_still_waiting_is_worth_one_more_page():
    tally = GroupReleaseTally("acme", [HANDBOOK, TOOLS])
    tally.add_page([release("acme/handbook", "v1")])
    assert tally.worth_reading_on(total_pages=2)
    assert not tally.worth_reading_on(total_pages=3)
