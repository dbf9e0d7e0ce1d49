from pathlib import Path

import pytest

from bot import config as config_module
from bot.engine import Engine
from bot.errors import EmptyIndexError, UsageError
from bot.index import catalog
from tests.gitrepo import commit, git, make_repo
from tests.searchindex import left_to_merge

GUIDE = """---
title: Widget guide
---

Widgets are small.

## Installing widgets

Run the widget installer with `widgetctl install`.

## Tuning the frobnicator

Set frobnication depth to seven.
"""


def _config(tmp_path: Path, *local: Path, **extra: object) -> config_module.Config:
    raw: dict[str, object] = {
        "sources": {"local": [str(p) for p in local], **extra.get("sources", {})},  # type: ignore[dict-item]
        "index": {"path": str(tmp_path / "index.sqlite")},
    }
    return config_module.from_mapping(raw, env={}, base=tmp_path)


@pytest.fixture
def estate(tmp_path: Path) -> Path:
    root = tmp_path / "estate"
    make_repo(
        root / "widgets",
        {
            "README.md": "# Widgets\n\nA widget library.\n",
            "zensical.toml": '[project]\nsite_name = "W"\nsite_url = "https://widgets.example/"\n',
            "docs/index.md": "# Welcome\n\nStart here.\n",
            "docs/guide/tuning.md": GUIDE,
            "user_guide.md": "# User guide\n\n## Sprockets\n\nSprockets spin clockwise.\n",
            "notes.txt": "frobnicator frobnicator frobnicator",
        },
    )
    gadgets = {"README.md": "# Gadgets\n\n## Frobnicator\n\nGadgets have none.\n"}
    make_repo(root / "gadgets", gadgets)
    return root


async def test_build_indexes_every_repository_and_cites_each_kind(tmp_path, estate):
    async with await Engine.open(_config(tmp_path, estate)) as engine:
        report = await engine.refresh()
        assert [o.status for o in report.outcomes] == ["indexed", "indexed"]
        # Durations are elapsed times, not clock readings (a bound for sense, not for speed).
        assert all(0 <= s < 600 for s in [report.seconds, *(o.seconds for o in report.outcomes)])
        retrieval = await engine.retrieve("what frobnication depth should I set?")
        top = retrieval.results[0]
        assert (top.repo, top.path, top.heading) == (
            "widgets",
            "docs/guide/tuning.md",
            "Tuning the frobnicator",
        )
        assert top.url == "https://widgets.example/guide/tuning/#tuning-the-frobnicator"
        assert top.heading_path == ("Widget guide", "Tuning the frobnicator")
        assert top.commit == git(estate / "widgets", "rev-parse", "HEAD")

        sprockets = (await engine.retrieve("sprockets spin")).results[0]
        assert sprockets.kind == "markdown"
        assert sprockets.url == "widgets/user_guide.md#L1-L5"
        paths = {r.path for r in (await engine.retrieve("frobnicator")).results}
        assert "notes.txt" not in paths


async def test_a_repository_no_longer_configured_leaves_the_index(tmp_path, estate):
    async with await Engine.open(_config(tmp_path, estate)) as engine:
        await engine.refresh()
        assert {r.repo for r in (await engine.retrieve("frobnicator")).results} == {
            "widgets",
            "gadgets",
        }
    async with await Engine.open(_config(tmp_path, estate / "widgets")) as engine:
        report = await engine.refresh()
        assert report.removed == ("gadgets",)
        assert [s.name for s in await engine.sources()] == ["widgets"]
        assert {r.repo for r in (await engine.retrieve("frobnicator")).results} == {"widgets"}
        assert await catalog.fingerprints(engine.store, "gadgets") == {}  # no document left


async def test_a_directory_that_cannot_be_read_keeps_its_repositories_last_index(tmp_path, estate):
    async with await Engine.open(_config(tmp_path, estate)) as engine:
        await engine.refresh()
        estate.rename(tmp_path / "unmounted")  # a disk not mounted, a directory moved
        report = await engine.refresh()
        assert report.removed == ()
        states = {s.name: s for s in await engine.sources()}
        unmounted = states[f"estate (missing at {estate})"]
        assert (unmounted.verdict, unmounted.clause) == ("unresolved", "missing")
        assert states["widgets"].documents > 0 and states["gadgets"].documents > 0
        assert {r.repo for r in (await engine.retrieve("frobnicator")).results} == {
            "widgets",
            "gadgets",
        }


async def test_only_regular_files_are_read_not_symlinks(tmp_path, estate):
    widgets = estate / "widgets"
    # A committed symlink's blob is its target's path; reading it would index "user_guide.md".
    (widgets / "docs" / "alias.md").symlink_to("../user_guide.md")
    (widgets / "install.md").write_text("# Install\n\nRun the installer twice.\n")
    (widgets / "install.md").chmod(0o755)  # an executable file is still a regular file
    commit(widgets, {})
    async with await Engine.open(_config(tmp_path, estate)) as engine:
        await engine.refresh()
        paths = set(await catalog.fingerprints(engine.store, "widgets"))
    assert "install.md" in paths
    assert "docs/alias.md" not in paths


async def test_an_unchanged_commit_reads_nothing(tmp_path, estate):
    async with await Engine.open(_config(tmp_path, estate)) as engine:
        await engine.refresh()
        again = await engine.refresh()
    assert [(o.status, o.written, o.kept) for o in again.outcomes] == [
        ("unchanged", 0, 0),
        ("unchanged", 0, 0),
    ]
    assert all(0 <= o.seconds < 600 for o in again.outcomes)


async def test_a_moved_commit_rereads_only_changed_files_and_drops_vanished(tmp_path, estate):
    repo = estate / "widgets"
    async with await Engine.open(_config(tmp_path, estate)) as engine:
        await engine.refresh()
        new = commit(repo, {"user_guide.md": None, "docs/index.md": "# Welcome\n\nGizmos.\n"})
        report = await engine.refresh(["widgets"])
        outcome = report.outcomes[0]
        assert (outcome.written, outcome.kept) == (1, 2)  # index.md rewritten; README, guide kept
        assert not (await engine.retrieve("sprockets")).results
        guide = (await engine.retrieve("frobnication depth")).results[0]
        assert guide.commit == new  # unchanged files are cited at the new commit


async def test_a_failing_source_keeps_its_previous_index(tmp_path, estate):
    repo = estate / "widgets"
    async with await Engine.open(_config(tmp_path, estate)) as engine:
        await engine.refresh()
        commit(repo, {"docs/index.md": "# Welcome\n\nChanged.\n"})
        # Damage the repository: the new blob can no longer be read.
        blob = git(repo, "rev-parse", "HEAD:docs/index.md")
        (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
        report = await engine.refresh()
        failed = {o.name: o for o in report.failed}
        assert "widgets" in failed and "damaged" in (failed["widgets"].error or "")
        assert 0 <= failed["widgets"].seconds < 600
        assert (await engine.retrieve("frobnication depth")).results[0].repo == "widgets"
        status = {s.state.name: s.state for s in await engine.status()}
        assert status["widgets"].last_error and status["gadgets"].last_error is None


async def test_excluded_repositories_are_never_read(tmp_path, estate):
    config = _config(tmp_path, estate, sources={"exclude": ["gadgets"]})
    async with await Engine.open(config) as engine:
        report = await engine.refresh()
        assert [o.name for o in report.outcomes] == ["widgets"]
        verdicts = {s.name: (s.verdict, s.clause) for s in await engine.sources()}
        assert verdicts["gadgets"] == ("rejected", "excluded")
        assert all(r.repo != "gadgets" for r in (await engine.retrieve("frobnicator")).results)


async def test_a_repository_excluded_and_let_back_in_at_the_same_commit_is_indexed_again(
    tmp_path, estate
):
    for sources in ({}, {"exclude": ["gadgets"]}, {}):
        async with await Engine.open(_config(tmp_path, estate, sources=sources)) as engine:
            report = await engine.refresh()
    # Its documents went with the exclusion, so its commit being the same proves nothing.
    assert {o.name: o.status for o in report.outcomes}["gadgets"] == "indexed"
    async with await Engine.open(_config(tmp_path, estate)) as engine:
        found = (await engine.retrieve("gadgets have none")).results
        assert found and found[0].repo == "gadgets"
        status = {s.state.name: s.state for s in await engine.status()}
        assert status["gadgets"].documents > 0


async def test_a_refused_source_name_changes_nothing_but_the_verdicts(tmp_path, estate):
    async with await Engine.open(_config(tmp_path, estate)) as engine:
        await engine.refresh()
    config = _config(tmp_path, estate, sources={"exclude": ["gadgets"]})
    async with await Engine.open(config) as engine:
        with pytest.raises(UsageError, match="gadgets is not indexed: rejected"):
            await engine.refresh(only=["gadgets"])
        verdicts = {s.name: (s.verdict, s.clause, s.documents) for s in await engine.sources()}
        # Recorded, so `index sources` explains it; its documents go on the next full build.
        assert verdicts["gadgets"][:2] == ("rejected", "excluded") and verdicts["gadgets"][2] > 0
        await engine.refresh()
        assert {s.name: s.documents for s in await engine.sources()}["gadgets"] == 0


async def test_unknown_source_names_are_a_usage_error(tmp_path, estate):
    async with await Engine.open(_config(tmp_path, estate)) as engine:
        with pytest.raises(UsageError, match="Known sources: gadgets, widgets"):
            await engine.refresh(["nope"])


async def test_an_unknown_source_name_still_records_the_verdicts_it_points_to(tmp_path, estate):
    async with await Engine.open(_config(tmp_path, estate)) as engine:
        with pytest.raises(UsageError, match=r"Run 'python -m bot\.cli index sources'"):
            await engine.refresh(["nope"])
        # The message sends the reader to `index sources`, which must then have them to show.
        verdicts = {s.name: (s.verdict, s.documents) for s in await engine.sources()}
        assert verdicts == {"gadgets": ("admitted", 0), "widgets": ("admitted", 0)}


async def test_an_empty_index_is_refused_with_how_to_build_it(tmp_path, estate):
    async with await Engine.open(_config(tmp_path, estate)) as engine:
        with pytest.raises(EmptyIndexError, match="index build"):
            await engine.ensure_ready()


async def test_missing_paths_are_unresolved_not_fatal(tmp_path, estate):
    async with await Engine.open(_config(tmp_path, estate, tmp_path / "nowhere")) as engine:
        report = await engine.refresh()
        assert len(report.outcomes) == 2
        verdicts = {s.name: (s.verdict, s.clause) for s in await engine.sources()}
        assert verdicts[f"nowhere (missing at {tmp_path / 'nowhere'})"] == ("unresolved", "missing")


async def test_an_unresolved_source_keeps_answering_from_its_last_index(tmp_path, estate):
    async with await Engine.open(
        _config(tmp_path, estate / "widgets", estate / "gadgets")
    ) as engine:
        await engine.refresh()
        (estate / "widgets").rename(tmp_path / "elsewhere")  # an unmounted disk, say
        await engine.refresh()
        verdicts = {s.name: (s.verdict, s.clause) for s in await engine.sources()}
        assert verdicts["widgets"] == ("unresolved", "missing")
        top = (await engine.retrieve("frobnication depth")).results[0]
        assert top.repo == "widgets"
        assert "widgets" in {s.state.name for s in await engine.status()}


async def test_a_refresh_leaves_the_search_indexes_merged(tmp_path, estate):
    config = _config(tmp_path, estate)
    async with await Engine.open(config) as engine:
        await engine.refresh()
        await engine.refresh(force=True)  # every row replaced: new segments, old rows deleted
    assert not left_to_merge(config.index_path)


async def test_a_skipped_file_is_logged_with_its_reason_unless_the_skip_is_routine(
    tmp_path, caplog
):
    root = tmp_path / "estate"
    make_repo(
        root / "tools",
        {
            "gen.go": "// Code generated by stringer. DO NOT EDIT.\n\npackage p\n\nconst A = 1\n",
            "broken.rs": "pub fn broken( {\n",
            "main.go": "package main\n\nfunc main() {}\n",  # nothing documented: routine
        },
    )
    caplog.set_level("INFO", logger="bot.indexing")
    async with await Engine.open(_config(tmp_path, root)) as engine:
        report = await engine.refresh()
    assert report.outcomes[0].skipped == 3
    logged = [r.getMessage() for r in caplog.records if r.levelname == "INFO"]
    assert "skipped tools/gen.go: gen.go is generated (its header says so)" in logged
    assert "skipped tools/broken.rs: Rust syntax error near line 1" in logged
    assert not [m for m in logged if "main.go" in m]


async def test_a_rust_module_is_indexed_while_its_parent_does_not_hide_it(tmp_path):
    root = tmp_path / "estate"
    hidden = '#[doc(hidden)]\n#[path = "private/mod.rs"]\npub mod __private;\n'
    make_repo(
        root / "crate",
        {
            "Cargo.toml": '[package]\nname = "crate"\n',
            "src/lib.rs": hidden,
            "src/private/mod.rs": "/// Glue derive macros expand to.\npub fn derive_glue() {}\n",
        },
    )
    async with await Engine.open(_config(tmp_path, root)) as engine:
        report = await engine.refresh()
        assert report.outcomes[0].skipped == 2  # lib.rs documents nothing; private/ is hidden
        assert not (await engine.retrieve("derive glue")).results
        # The parent stops hiding it: the file, unchanged, is read now.
        commit(root / "crate", {"src/lib.rs": hidden.replace("#[doc(hidden)]\n", "")})
        await engine.refresh()
        found = (await engine.retrieve("derive glue")).results
        assert [r.path for r in found] == ["src/private/mod.rs"]
        # And when it hides it again, the file, still unchanged, leaves the index.
        commit(root / "crate", {"src/lib.rs": hidden})
        await engine.refresh()
        assert not (await engine.retrieve("derive glue")).results
