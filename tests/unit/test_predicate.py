"""The corpus predicate, tested adversarially: exclusions first and absolute."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from bot.forge.base import Project, SiteCheck, Unknown
from bot.forge.candidates import Verdict
from bot.forge.feed import parse_feed
from bot.forge.predicate import (
    Policy,
    SiteFacts,
    decide,
    excluded_by,
    named_by,
    same_path,
    screen,
)

POLICY = Policy("acme", exclude=("infra", "acme/secret-docs"), siteless_subgroups=("go", "rust"))
ANSWERS = SiteCheck(True, "HTTP 200")
GOOD_SITE = SiteFacts("zensical.toml", "https://docs.example/", ANSWERS)


def project(path: str = "acme/handbook", **changes: object) -> Project:
    base = Project(
        id=1,
        path=path,
        namespace=path.rpartition("/")[0],
        visibility="public",
        archived=False,
        empty_repo=False,
        default_branch="main",
        http_url=f"https://gl.example/{path}.git",
        ssh_url=None,
        web_url=f"https://gl.example/{path}",
        pages_access_level="enabled",
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def feed(*paths: str) -> frozenset[str]:
    return frozenset(p.lower() for p in paths)


def test_a_project_meeting_every_clause_is_admitted_with_its_site():
    decision = decide(project(), POLICY, feed("acme/handbook"), GOOD_SITE)
    assert (decision.verdict, decision.clause, decision.site) == (Verdict.ADMITTED, "site", True)


def test_an_excluded_project_satisfying_everything_else_is_rejected():
    infra = project("acme/infra")
    decision = decide(infra, POLICY, feed("acme/infra"), GOOD_SITE)
    assert (decision.verdict, decision.clause) == (Verdict.REJECTED, "excluded")


def test_exclusion_wins_even_when_other_facts_are_unknown():
    infra = project("acme/infra")
    decision = decide(infra, POLICY, Unknown("feed down"), SiteFacts(Unknown("500")))
    assert (decision.verdict, decision.clause) == (Verdict.REJECTED, "excluded")


def test_exclusion_covers_everything_under_a_named_namespace():
    assert excluded_by("acme/infra/terraform", POLICY) == "infra"
    assert excluded_by("ACME/Secret-Docs", POLICY) == "acme/secret-docs"
    assert excluded_by("acme/infrastructure", POLICY) is None


def test_an_exclusion_naming_no_path_excludes_nothing_and_stops_no_other():
    policy = Policy("acme", exclude=("/", "infra"))
    assert excluded_by("acme/handbook", policy) is None
    assert excluded_by("acme/infra", policy) == "infra"


@given(st.sampled_from(["public", "private", "internal"]), st.booleans(), st.booleans())
def test_nothing_about_an_excluded_project_can_admit_it(visibility, archived, listed):
    infra = project("acme/infra", visibility=visibility, archived=archived)
    the_feed = feed("acme/infra") if listed else feed()
    assert decide(infra, POLICY, the_feed, GOOD_SITE).clause == "excluded"


def test_the_feed_is_canon():
    decision = decide(project(), POLICY, feed("acme/other"), GOOD_SITE)
    assert (decision.verdict, decision.clause) == (Verdict.REJECTED, "feed")


def test_an_unreadable_feed_is_unresolved_but_a_private_project_is_still_rejected():
    unknown = Unknown("HTTP 500")
    assert decide(project(), POLICY, unknown, GOOD_SITE).verdict is Verdict.UNRESOLVED
    private = decide(project(visibility="private"), POLICY, unknown, GOOD_SITE)
    assert (private.verdict, private.clause) == (Verdict.REJECTED, "visibility")


def test_a_project_becoming_public_after_exclusion_stays_excluded():
    infra = project("acme/infra", visibility="private")
    assert decide(infra, POLICY, feed("acme/infra"), GOOD_SITE).clause == "excluded"
    assert (
        decide(replace(infra, visibility="public"), POLICY, feed("acme/infra"), GOOD_SITE).clause
        == "excluded"
    )


def test_shared_and_foreign_projects_are_outside_the_group():
    shared = project("other/tool")
    assert decide(shared, POLICY, feed("other/tool"), GOOD_SITE).clause == "group"
    lookalike = project("acme-evil/tool")
    assert decide(lookalike, POLICY, feed("acme-evil/tool"), GOOD_SITE).clause == "group"


def test_internal_archived_and_empty_projects_are_rejected_by_their_clause():
    the_feed = feed("acme/handbook")
    assert (
        decide(project(visibility="internal"), POLICY, the_feed, GOOD_SITE).clause == "visibility"
    )
    assert decide(project(archived=True), POLICY, the_feed, GOOD_SITE).clause == "archived"
    assert decide(project(empty_repo=True), POLICY, the_feed, GOOD_SITE).clause == "empty"


def test_a_site_config_without_a_published_site_is_no_site():
    the_feed = feed("acme/handbook")
    cases = {
        "no config": (project(), SiteFacts(None), "no zensical.toml"),
        "no site_url": (project(), SiteFacts("zensical.toml"), "names no site_url"),
        "pages off": (
            project(pages_access_level="disabled"),
            GOOD_SITE,
            "pages_access_level is disabled",
        ),
        "private pages": (
            project(pages_access_level="private"),
            GOOD_SITE,
            "pages_access_level is private",
        ),
        "does not answer": (
            project(),
            SiteFacts("zensical.toml", "https://d/", SiteCheck(False, "HTTP 404")),
            "the site at https://d/ did not answer: HTTP 404",
        ),
    }
    for name, (subject, facts, words) in cases.items():
        decision = decide(subject, POLICY, the_feed, facts)
        assert (decision.verdict, decision.clause) == (Verdict.REJECTED, "site"), name
        assert words in decision.detail, (name, decision.detail)


def test_pages_public_or_enabled_in_the_listing_is_pages_on():
    for level in ("enabled", "public"):
        decision = decide(
            project(pages_access_level=level), POLICY, feed("acme/handbook"), GOOD_SITE
        )
        assert decision.verdict is Verdict.ADMITTED, level
        assert f"pages_access_level {level}" in decision.detail


def test_an_admitting_clause_says_when_the_site_was_last_seen_answering():
    fresh = decide(project(), POLICY, feed("acme/handbook"), GOOD_SITE)
    assert "the site answered HTTP 200" in fresh.detail
    earlier = SiteFacts(
        "zensical.toml", "https://docs.example/", SiteCheck(True, "", "2026-11-30T06:00:00+00:00")
    )
    reused = decide(project(), POLICY, feed("acme/handbook"), earlier)
    assert reused.verdict is Verdict.ADMITTED
    assert "last answered at 2026-11-30T06:00:00+00:00" in reused.detail


def test_unknown_site_facts_are_unresolved_never_rejected():
    the_feed = feed("acme/handbook")
    for subject, facts in (
        (project(), SiteFacts(Unknown("HTTP 500"))),
        (project(), SiteFacts("zensical.toml", "https://d/", Unknown("HTTP 503"))),
        (project(), SiteFacts("zensical.toml", "https://d/", None)),
        (project(pages_access_level=None), GOOD_SITE),
        (project(pages_access_level="sometimes"), GOOD_SITE),
    ):
        decision = decide(subject, POLICY, the_feed, facts)
        assert (decision.verdict, decision.clause) == (Verdict.UNRESOLVED, "site"), facts


def test_siteless_subgroups_admit_readme_code_and_changelog_only():
    lib = project("acme/go/family/lib")
    decision = decide(lib, POLICY, feed("acme/go/family/lib"), SiteFacts(None))
    assert (decision.verdict, decision.clause, decision.site) == (
        Verdict.ADMITTED,
        "siteless",
        False,
    )
    sited = decide(lib, POLICY, feed("acme/go/family/lib"), GOOD_SITE)
    assert (sited.clause, sited.site) == ("site", True)
    # A project called "go" at the top is not inside the go/ subgroup.
    top = project("acme/go")
    assert decide(top, POLICY, feed("acme/go"), SiteFacts(None)).clause == "site"
    assert decide(top, POLICY, feed("acme/go"), SiteFacts(None)).verdict is Verdict.REJECTED


def test_a_subgroup_not_admitted_without_a_site_still_needs_one():
    for path in ("acme/python/lib", "acme/gone/lib"):  # "gone" merely starts like "go"
        decision = decide(project(path), POLICY, feed(path), SiteFacts(None))
        assert (decision.verdict, decision.clause) == (Verdict.REJECTED, "site"), path
        assert "(go/, rust/)" in decision.detail
    unconfigured = decide(project(), Policy("acme"), feed("acme/handbook"), SiteFacts(None))
    assert "(none configured)" in unconfigured.detail


def test_screen_settles_listing_clauses_before_any_site_fact_is_needed():
    assert screen(project(), POLICY, feed("acme/handbook")) is None
    assert screen(project("acme/infra"), POLICY, feed("acme/infra")).clause == "excluded"  # type: ignore[union-attr]


def test_the_feed_takes_paths_or_objects_and_refuses_anything_else():
    assert parse_feed(b'["Acme/A", {"path": "acme/b"}]') == frozenset({"acme/a", "acme/b"})
    assert isinstance(parse_feed(b'{"projects": []}'), Unknown)
    # An empty feed would reject every project; it is taken for a broken deploy instead.
    empty = parse_feed(b"[]")
    assert isinstance(empty, Unknown) and "no project" in empty.reason
    assert isinstance(parse_feed(b'["acme/a", 3]'), Unknown)
    assert isinstance(parse_feed(b"not json"), Unknown)


def test_paths_are_the_same_whatever_their_case_and_outer_slashes():
    assert same_path("Acme/Go/", "acme/go")
    assert not same_path("acme/go", "acme/gone")
    assert not same_path("acme/go/lib", "acme/go")


def test_a_name_is_matched_exactly_first_then_in_any_letter_case():
    names = ["Tools", "acme/Widgets", "tools"]
    assert named_by("acme/widgets", names) == ["acme/Widgets"]
    assert named_by(" ACME/WIDGETS/", names) == ["acme/Widgets"]
    # Two local repositories apart by case alone: the exact spelling picks one...
    assert named_by("tools", names) == ["tools"]
    assert named_by("Tools", names) == ["Tools"]
    # ...and any other spelling names both, for the caller to ask which.
    assert named_by("TOOLS", names) == ["Tools", "tools"]
    assert named_by("acme/gadgets", names) == []
    # Case folding, not just lowering: German sharp s is "ss" in any case.
    assert named_by("STRASSE", ["straße"]) == ["straße"]
