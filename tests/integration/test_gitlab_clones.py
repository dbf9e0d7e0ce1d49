"""Clones against real git over loopback: tokens, fast-forwards, re-clones, releases."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import stat
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from bot import clones as clones_module
from bot import config as config_module
from bot import render
from bot.engine import Engine
from bot.errors import RateLimited, SourceError
from bot.index import catalog
from bot.outcomes import QuietProgress
from tests.fakes.estate import (
    another_process_holding,
    configure,
    push,
    release,
    rename,
    upstream,
)
from tests.fakes.gitlab import FakeGitLab, Recorder, Rule
from tests.fetch_slots import Transfers, refresh_beside_two
from tests.gitrepo import commit, corrupt_packed_object, git, make_repo
from tests.integration.conftest import TOKEN
from tests.processes import descendants

GUIDE = "# Guide\n\n## Frobnicating\n\nSet the frobnication depth to seven.\n"


def _clone(tmp_path: Path, name: str) -> Path:
    return tmp_path / "clones" / name.replace("/", "%2F")


def _one(fake: FakeGitLab, **project) -> None:
    upstream(fake, "acme/widgets", {"README.md": "# Widgets\n", "docs/guide.md": GUIDE}, **project)
    fake.feed = ["acme/widgets"]


def _lib_in_a_siteless_subgroup(fake: FakeGitLab) -> None:
    """A source with a site under ``acme/go``, so that losing its site leaves it siteless."""
    upstream(fake, "acme/go/lib", {"README.md": "# Lib\n\nLevers.\n", "docs/guide.md": GUIDE})
    fake.feed = ["acme/go/lib"]


async def _outcomes(engine: Engine) -> dict[str, str]:
    report = await engine.refresh()
    return {o.name: o.status for o in report.outcomes}


async def _guide_commit(engine: Engine) -> str:
    return (await engine.retrieve("frobnication depth")).results[0].commit


async def test_https_clone_sends_the_token_as_basic_auth_and_never_stores_it(tmp_path, fake):
    _one(fake, release="v1.0")
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        assert await _outcomes(engine) == {"acme/widgets": "indexed"}
        assert await _guide_commit(engine) == git(
            fake.repo_dir("acme/widgets"), "rev-parse", "HEAD"
        )
    git_requests = [r for r in fake.log if r.is_git]
    assert git_requests and all(
        r.authorization and r.authorization.startswith("Basic ") for r in git_requests
    )
    clones = tmp_path / "clones"
    assert stat.S_IMODE(clones.stat().st_mode) == 0o700
    clone = _clone(tmp_path, "acme/widgets")
    assert git(clone, "rev-parse", "--is-shallow-repository") == "true"
    assert git(clone, "tag", "--list") == "v1.0"
    refs = set(git(clone, "for-each-ref", "--format=%(refname)").split())
    assert refs - {"refs/remotes/origin/HEAD"} == {
        "refs/heads/main",
        "refs/remotes/origin/main",
        "refs/tags/v1.0",
    }
    for path in clones.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert TOKEN.encode() not in data, path
            assert b"glpat" not in data, path


async def test_no_token_sends_nothing_and_checks_nothing(tmp_path, home, recorder):
    with FakeGitLab(tmp_path / "upstream") as fake:
        _one(fake)
        upstream(
            fake,
            "acme/elsewhere",
            {"README.md": "# E\n"},
            http_url=f"{recorder.url}/acme/elsewhere.git",
        )
        fake.feed.append("acme/elsewhere")
        async with await Engine.open(configure(tmp_path, fake)) as engine:
            outcomes = await _outcomes(engine)
    assert outcomes["acme/widgets"] == "indexed"
    assert outcomes["acme/elsewhere"] == "failed"  # the foreign host refuses it
    assert all(r.authorization is None and r.private_token is None for r in fake.log)
    assert recorder.log and all(r.authorization is None for r in recorder.log)


async def test_the_token_never_reaches_a_foreign_host_or_port(tmp_path, fake, recorder):
    _one(fake)
    upstream(fake, "acme/moved", {"README.md": "# M\n"}, http_url=f"{recorder.url}/acme/moved.git")
    other_port = Recorder(host="127.0.0.1")
    with other_port:
        upstream(
            fake, "acme/port", {"README.md": "# P\n"}, http_url=f"{other_port.url}/acme/port.git"
        )
        fake.feed += ["acme/moved", "acme/port"]
        async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
            report = await engine.refresh()
            status = {s.state.name: s.state.last_error for s in await engine.status()}
    outcomes = {o.name: o for o in report.outcomes}
    assert outcomes["acme/widgets"].status == "indexed"
    for name in ("acme/moved", "acme/port"):
        assert outcomes[name].status == "failed"
        assert "no token was sent" in (outcomes[name].error or "")
        assert "no token was sent" in (status[name] or "")
    assert recorder.log == [] and other_port.log == []
    assert not _clone(tmp_path, "acme/moved").exists()


async def test_an_unchanged_source_costs_one_git_round_trip_and_no_tree_read(tmp_path, fake):
    _one(fake, release="v1.0")
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        fake.clear_log()
        assert await _outcomes(engine) == {"acme/widgets": "unchanged"}
    project = fake.project("acme/widgets")
    git_requests = [r.path for r in fake.requests_for(project) if r.is_git]
    assert git_requests == ["/acme/widgets.git/info/refs"]
    assert not [r for r in fake.log if "/repository/files/" in r.path]


async def test_a_moved_branch_is_fast_forwarded_and_only_docs_move(tmp_path, fake):
    _one(fake)
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        marker = _clone(tmp_path, "acme/widgets") / ".git" / "kept-marker"
        marker.write_text("same clone")
        head = push(fake, "acme/widgets", {"docs/new.md": "# New\n\nSprockets spin.\n"})
        assert await _outcomes(engine) == {"acme/widgets": "indexed"}
        assert (await engine.retrieve("sprockets spin")).results[0].commit == head
        assert await _guide_commit(engine) == head
    assert marker.exists()  # fast-forwarded in place, not cloned again


async def _recloned(tmp_path: Path, engine: Engine) -> None:
    marker = _clone(tmp_path, "acme/widgets") / ".git" / "kept-marker"
    assert await _outcomes(engine) == {"acme/widgets": "indexed"}
    assert not marker.exists()


async def _with_marker(tmp_path: Path, engine: Engine) -> None:
    await engine.refresh()
    (_clone(tmp_path, "acme/widgets") / ".git" / "kept-marker").write_text("x")


async def test_history_rewritten_upstream_is_cloned_again(tmp_path, fake):
    _one(fake)
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await _with_marker(tmp_path, engine)
        repo = fake.repo_dir("acme/widgets")
        git(repo, "checkout", "-q", "--orphan", "rewritten")
        head = commit(repo, {"docs/guide.md": GUIDE + "\nRewritten.\n"}, "rewrite")
        git(repo, "branch", "-q", "-M", "main")
        await _recloned(tmp_path, engine)
        assert await _guide_commit(engine) == head


async def test_a_moved_default_branch_is_cloned_again(tmp_path, fake):
    _one(fake)
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await _with_marker(tmp_path, engine)
        repo = fake.repo_dir("acme/widgets")
        git(repo, "checkout", "-q", "-b", "trunk")
        head = commit(repo, {"docs/trunk.md": "# Trunk\n\nGrommets glow.\n"})
        fake.project("acme/widgets").default_branch = "trunk"
        await _recloned(tmp_path, engine)
        assert (await engine.retrieve("grommets glow")).results[0].commit == head
        status = (await engine.status())[0].state
        assert status.default_branch == "trunk"
    clone = _clone(tmp_path, "acme/widgets")
    assert git(clone, "branch", "--show-current") == "trunk"


async def test_a_clone_with_local_changes_is_cloned_again(tmp_path, fake):
    _one(fake)
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await _with_marker(tmp_path, engine)
        (_clone(tmp_path, "acme/widgets") / "docs" / "guide.md").write_text("# Tampered\n")
        head = push(fake, "acme/widgets", {"docs/guide.md": GUIDE + "\nMore.\n"})
        await _recloned(tmp_path, engine)
        assert await _guide_commit(engine) == head


async def test_a_damaged_clone_is_cloned_again(tmp_path, fake):
    _one(fake)
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await _with_marker(tmp_path, engine)
        clone = _clone(tmp_path, "acme/widgets")
        for pack in (clone / ".git" / "objects" / "pack").iterdir():
            pack.unlink()  # its objects are gone
        head = push(fake, "acme/widgets", {"docs/more.md": "# More\n\nCogs.\n"})
        await _recloned(tmp_path, engine)
        assert (await engine.retrieve("cogs")).results[0].commit == head


async def test_a_moved_release_leaves_exactly_its_tag(tmp_path, fake):
    _one(fake, release="v1.0")
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        push(fake, "acme/widgets", {"main.go": "package widgets\n"})
        tagged = release(fake, "acme/widgets", "v1.1")
        assert await _outcomes(engine) == {"acme/widgets": "indexed"}
        state = (await engine.status())[0].state
        assert (state.release_tag, state.release_commit) == ("v1.1", tagged)
        fake.project("acme/widgets").release = None  # the release is withdrawn
        assert await _outcomes(engine) == {"acme/widgets": "indexed"}
        assert (await engine.status())[0].state.release_tag is None
    assert git(_clone(tmp_path, "acme/widgets"), "tag", "--list") == ""


async def test_a_failed_release_lookup_refreshes_docs_and_keeps_code_at_the_last_release(
    tmp_path, fake
):
    _one(fake, release="v1.0")
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        v1 = (await engine.status())[0].state.release_commit
        release(fake, "acme/widgets", "v1.1")
        head = push(fake, "acme/widgets", {"docs/guide.md": GUIDE + "\nFresh docs.\n"})
        fake.project("acme/widgets").release = 403
        assert await _outcomes(engine) == {"acme/widgets": "indexed"}
        state = (await engine.status())[0].state
        assert await _guide_commit(engine) == head
        assert (state.release_tag, state.release_commit) == ("v1.0", v1)
        assert "403" in (state.release_error or "")
    assert git(_clone(tmp_path, "acme/widgets"), "tag", "--list") == "v1.0"


RELEASED = "package widgets\n\n// Spin turns the widget.\nfunc Spin() {}\n"
UNRELEASED = "package widgets\n\n// Wobble shakes the widget.\nfunc Wobble() {}\n"


async def _documents(engine: Engine) -> dict[str, tuple[str, str]]:
    """Each indexed path of acme/widgets, with its kind and the commit it was read from."""
    rows = await engine.store.fetchall(
        "SELECT path, kind, commit_sha FROM documents WHERE source = 'acme/widgets'"
    )
    return {r[0]: (r[1], r[2]) for r in rows}


async def _code_at(engine: Engine) -> dict[str, str]:
    return {p: c for p, (kind, c) in (await _documents(engine)).items() if kind == "code"}


def _released_then_moved(fake: FakeGitLab) -> tuple[str, str]:
    """acme/widgets released at v1.0, then code and docs that no release ships yet."""
    upstream(
        fake,
        "acme/widgets",
        {"README.md": "# Widgets\n", "docs/guide.md": GUIDE, "widgets.go": RELEASED},
        release="v1.0",
    )
    fake.feed = ["acme/widgets"]
    v1 = git(fake.repo_dir("acme/widgets"), "rev-parse", "HEAD")
    head = push(
        fake, "acme/widgets", {"widgets.go": UNRELEASED, "docs/guide.md": GUIDE + "\nNew.\n"}
    )
    return v1, head


@pytest.mark.parametrize("lookup", [500, "v9.9"], ids=["lookup-fails", "tag-not-in-repository"])
async def test_a_first_index_whose_release_lookup_fails_leaves_code_out_until_it_succeeds(
    tmp_path, fake, lookup
):
    v1, head = _released_then_moved(fake)
    fake.project("acme/widgets").release = lookup
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        assert await _outcomes(engine) == {"acme/widgets": "indexed"}
        assert await _guide_commit(engine) == head  # docs come from the branch all the same
        assert await _code_at(engine) == {}  # no unreleased code, and no release to read
        assert not (await engine.retrieve("wobble")).results
        state = (await engine.status())[0].state
        assert (state.release_tag, state.release_commit) == (None, None)
        assert "left out" in (state.release_error or "")
        assert "Run the build again" in (state.release_error or "")

        fake.project("acme/widgets").release = "v1.0"
        assert await _outcomes(engine) == {"acme/widgets": "indexed"}
        assert await _code_at(engine) == {"widgets.go": v1}
        assert (await engine.retrieve("spin")).results[0].commit == v1
        state = (await engine.status())[0].state
        assert (state.release_tag, state.release_commit, state.release_error) == ("v1.0", v1, None)


async def test_code_stays_as_indexed_when_the_release_tag_is_gone_and_the_lookup_fails(
    tmp_path, fake
):
    v1, _ = _released_then_moved(fake)
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        before = await engine.store.fetchall(
            "SELECT d.path, d.commit_sha, d.indexed_at, c.body FROM documents d "
            "JOIN chunks c ON c.document_id = d.id WHERE d.kind = 'code'"
        )
        git(fake.repo_dir("acme/widgets"), "tag", "-d", "v1.0")
        head = push(fake, "acme/widgets", {"docs/guide.md": GUIDE + "\nNewer.\n"})
        fake.project("acme/widgets").release = 500
        assert await _outcomes(engine) == {"acme/widgets": "indexed"}
        assert await _guide_commit(engine) == head
        after = await engine.store.fetchall(
            "SELECT d.path, d.commit_sha, d.indexed_at, c.body FROM documents d "
            "JOIN chunks c ON c.document_id = d.id WHERE d.kind = 'code'"
        )
        assert [tuple(r) for r in after] == [tuple(r) for r in before]  # exactly as they were
        assert await _code_at(engine) == {"widgets.go": v1}
        assert not (await engine.retrieve("wobble")).results
        state = (await engine.status())[0].state
        assert (state.release_tag, state.release_commit) == ("v1.0", v1)
        assert "stays at release v1.0" in (state.release_error or "")

        tagged = release(fake, "acme/widgets", "v1.1")
        assert await _outcomes(engine) == {"acme/widgets": "indexed"}
        assert await _code_at(engine) == {"widgets.go": tagged}
        assert (await engine.retrieve("wobble")).results[0].commit == tagged


async def test_code_from_the_branch_stays_as_indexed_while_the_lookup_fails(tmp_path, fake):
    upstream(fake, "acme/widgets", {"README.md": "# Widgets\n", "widgets.go": RELEASED})
    fake.feed = ["acme/widgets"]
    first = git(fake.repo_dir("acme/widgets"), "rev-parse", "HEAD")
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()  # no release: code is read from the branch
        assert await _code_at(engine) == {"widgets.go": first}
        fake.project("acme/widgets").release = 500  # perhaps a release now exists
        head = push(fake, "acme/widgets", {"widgets.go": UNRELEASED})
        assert await _outcomes(engine) == {"acme/widgets": "indexed"}
        assert await _code_at(engine) == {"widgets.go": first}
        assert "stays as it was last indexed" in (
            (await engine.status())[0].state.release_error or ""
        )
        # Forced, it still reads no code: the branch is all there is to read it from.
        assert (await engine.refresh(force=True)).ok
        assert await _code_at(engine) == {"widgets.go": first}
        fake.project("acme/widgets").release = None  # there is none after all
        assert await _outcomes(engine) == {"acme/widgets": "indexed"}
        assert await _code_at(engine) == {"widgets.go": head}


async def test_the_forge_going_down_mid_run_keeps_the_index_and_the_clone(tmp_path, fake):
    _one(fake)
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        before = await _guide_commit(engine)
        push(fake, "acme/widgets", {"docs/guide.md": GUIDE + "\nNew.\n"})
        # Discovery still works; the repository stops answering once the refs were read.
        fake.rules = [Rule(r"\.git/", status=503, skip=1)]
        report = await engine.refresh()
        assert [(o.name, o.status) for o in report.outcomes] == [("acme/widgets", "failed")]
        assert await _guide_commit(engine) == before
        assert "503" in ((await engine.status())[0].state.last_error or "")
    assert (_clone(tmp_path, "acme/widgets") / ".git").is_dir()


class _CloneChangedOnceFetched(QuietProgress):
    """Changes a source's clone as its indexing starts: after it was fetched, before it is read."""

    def __init__(self, name: str, change: Callable[[Path], None], clone: Path) -> None:
        self.name, self.change, self.clone = name, change, clone

    def source_started(self, name: str) -> None:
        if name == self.name:
            self.change(self.clone)


def _clone_replaced_with_file(clone: Path) -> None:
    shutil.rmtree(clone)
    clone.write_text("not a clone\n", encoding="utf-8")


def _clone_unreadable(clone: Path) -> None:
    # A name past NAME_MAX fails to look up as a directory the user may not read does, even
    # for root, which reads through any permission.
    shutil.rmtree(clone)
    clone.symlink_to(clone.parent / ("x" * 300))


_WENT = (
    "went away after it was fetched (removed or replaced while the build ran), so nothing of "
    "it was read this run and its last index keeps answering; the next build clones it again"
)
_UNREADABLE = (
    "cannot be read any more (File name too long), so nothing of it was read this run and its "
    "last index keeps answering. Let the user phpbotscout runs as read it, or remove it and the "
    "next build clones it again"
)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (shutil.rmtree, _WENT),
        (_clone_replaced_with_file, _WENT),
        (lambda clone: shutil.rmtree(clone / ".git"), _WENT),
        (_clone_unreadable, _UNREADABLE),
    ],
    ids=["removed", "a-file", "not-a-repository", "unreadable"],
)
async def test_a_clone_changed_after_its_fetch_fails_alone_and_keeps_its_index(
    tmp_path, fake, change, says
):
    _one(fake)
    upstream(fake, "acme/gadgets", {"README.md": "# Gadgets\n\nGizmos.\n"})
    fake.feed = ["acme/widgets", "acme/gadgets"]
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        before = await _guide_commit(engine)
        push(fake, "acme/widgets", {"docs/guide.md": GUIDE + "\nNew.\n"})
        push(fake, "acme/gadgets", {"README.md": "# Gadgets\n\nWhirligigs.\n"})
        clone = _clone(tmp_path, "acme/widgets")
        progress = _CloneChangedOnceFetched("acme/widgets", change, clone)
        report = await engine.refresh(progress=progress)
        outcomes = {o.name: (o.status, o.error) for o in report.outcomes}
        error = f"the clone of acme/widgets at {clone} {says}"
        assert outcomes == {"acme/widgets": ("failed", error), "acme/gadgets": ("indexed", None)}
        assert await _guide_commit(engine) == before
        assert (await engine.retrieve("whirligigs")).results
        states = {s.name: s for s in await engine.sources()}
        assert states["acme/widgets"].last_error == error
        if clone.is_symlink():
            clone.unlink()  # as the error says: removed, it is cloned again
        assert await _outcomes(engine) == {"acme/widgets": "indexed", "acme/gadgets": "unchanged"}
        assert await _guide_commit(engine) != before


def _corrupted_once_fetched(
    fake: FakeGitLab, clone: Path
) -> tuple[str, str, _CloneChangedOnceFetched]:
    """A new commit, and a progress that corrupts its guide's blob in the clone once fetched.

    Only reading finds it: the fetch had nothing to say of an object it already held.
    """
    head = push(fake, "acme/widgets", {"docs/guide.md": GUIDE + "\nNew.\n"})
    blob = git(fake.repo_dir("acme/widgets"), "rev-parse", "HEAD:docs/guide.md")
    progress = _CloneChangedOnceFetched(
        "acme/widgets", lambda c: corrupt_packed_object(c, blob), clone
    )
    return head, blob, progress


def _corrupt(clone: Path, blob: str, head: str) -> str:
    [damaged_pack] = (clone / ".git" / "objects" / "pack").glob("*.pack")
    return (
        f"the clone of acme/widgets at {clone} is damaged: docs/guide.md (blob {blob[:12]}) "
        f"at commit {head[:12]} is in its object store but corrupt (packed object {blob} "
        f"(stored in {damaged_pack.relative_to(clone)}) is corrupt)"
    )


def _files(tree: Path) -> dict[str, bytes]:
    return {str(p.relative_to(tree)): p.read_bytes() for p in tree.rglob("*") if p.is_file()}


def _no_room_for_a_new_clone(monkeypatch: pytest.MonkeyPatch, clone: Path) -> None:
    """A full disk as a new clone is put in ``clone``'s place: every other rename goes ahead."""
    real_rename = Path.rename

    def refuse_the_new_one(self: Path, target: Path) -> Path:
        if self.name.startswith("+tmp-") and Path(target) == clone:
            raise OSError(28, "No space left on device")
        return real_rename(self, target)

    monkeypatch.setattr(Path, "rename", refuse_the_new_one)


def _unparsable_config(clone: Path) -> None:
    (clone / ".git" / "config").write_text("[core\n", encoding="utf-8")


@pytest.mark.parametrize("config_damaged", [False, True], ids=["corrupt-object", "config"])
async def test_a_clone_found_damaged_once_read_is_cloned_again_and_indexed_in_the_same_build(
    tmp_path, fake, caplog, config_damaged
):
    # phpbotscout keeps the clone itself, shallow: cloned again, it is whole.
    _one(fake)
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await _with_marker(tmp_path, engine)
        clone = _clone(tmp_path, "acme/widgets")
        head, _, progress = _corrupted_once_fetched(fake, clone)
        if config_damaged:
            progress.change = _unparsable_config
        with caplog.at_level(logging.WARNING, logger="bot.forge_refresh"):
            report = await engine.refresh(progress=progress)
        assert [(o.name, o.status, o.error) for o in report.outcomes] == [
            ("acme/widgets", "indexed", None)
        ]
        assert await _guide_commit(engine) == head
        assert (await engine.status())[0].state.last_error is None
    assert not (clone / ".git" / "kept-marker").exists()
    assert git(clone, "fsck", "--no-dangling") == ""
    assert sorted(p.name for p in clone.parent.iterdir()) == ["+lock", clone.name]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("acme/widgets" in w and "cloning acme/widgets again" in w for w in warnings)


async def test_a_damaged_clone_that_cannot_be_cloned_again_is_kept_and_so_is_its_index(
    tmp_path, fake
):
    _one(fake)
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await _with_marker(tmp_path, engine)
        before = await _guide_commit(engine)
        clone = _clone(tmp_path, "acme/widgets")
        head, blob, progress = _corrupted_once_fetched(fake, clone)

        def corrupt_then_refuse(c: Path) -> None:
            corrupt_packed_object(c, blob)
            fake.rules = [Rule(r"\.git/", status=403)]  # the fresh clone is refused

        progress.change = corrupt_then_refuse
        report = await engine.refresh(progress=progress)
        kept = _files(clone)
        error = (
            f"{_corrupt(clone, blob, head)}, and cloning it again failed too (GitLab forbade git "
            "to read the repository (HTTP 403): the token lacks the read_repository scope, or "
            "the project forbids this token. Give GITLAB_TOKEN the read_repository scope, or a "
            "token with access), so nothing of it was read this run and its last index keeps "
            "answering. The damaged clone is kept as it was; the next build clones it again"
        )
        assert [(o.name, o.status, o.error) for o in report.outcomes] == [
            ("acme/widgets", "failed", error)
        ]
        assert await _guide_commit(engine) == before
        assert (await engine.status())[0].state.last_error == error
        # Neither lost nor half deleted, and nothing left beside it.
        assert (clone / ".git" / "kept-marker").exists()
        assert sorted(p.name for p in clone.parent.iterdir()) == ["+lock", clone.name]
        fake.rules = []
        assert await _outcomes(engine) == {"acme/widgets": "indexed"}
        assert await _guide_commit(engine) == head
    assert kept != _files(clone)


async def test_a_damaged_clone_whose_new_clone_cannot_take_its_place_says_both(
    tmp_path, fake, monkeypatch
):
    # A full disk as the new clone is put in place: the damage is named too, not the disk alone.
    _one(fake)
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await _with_marker(tmp_path, engine)
        before = await _guide_commit(engine)
        clone = _clone(tmp_path, "acme/widgets")
        head, blob, progress = _corrupted_once_fetched(fake, clone)
        _no_room_for_a_new_clone(monkeypatch, clone)
        report = await engine.refresh(progress=progress)
        error = (
            f"{_corrupt(clone, blob, head)}, and cloning it again failed too ([Errno 28] No "
            "space left on device), so nothing of it was read this run and its last index "
            "keeps answering. The damaged clone is kept as it was; the next build clones it "
            "again"
        )
        assert [(o.name, o.status, o.error) for o in report.outcomes] == [
            ("acme/widgets", "failed", error)
        ]
        assert await _guide_commit(engine) == before
        assert (clone / ".git" / "kept-marker").exists()
        assert sorted(p.name for p in clone.parent.iterdir()) == ["+lock", clone.name]


async def test_a_clone_damaged_again_once_cloned_again_fails_and_is_not_cloned_a_third_time(
    tmp_path, fake, monkeypatch
):
    from bot.clones import Clones, CloneState

    _one(fake)
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await _with_marker(tmp_path, engine)
        before = await _guide_commit(engine)
        clone = _clone(tmp_path, "acme/widgets")
        head, blob, progress = _corrupted_once_fetched(fake, clone)
        cloned_again = Clones.clone_again
        calls = []

        def damaged_too(self: Clones, *args: str | None) -> CloneState:
            calls.append(args)
            state = cloned_again(self, *args)
            corrupt_packed_object(state.path, blob)  # as a forge serving it damaged would
            return state

        monkeypatch.setattr(Clones, "clone_again", damaged_too)
        report = await engine.refresh(progress=progress)
        [outcome] = report.outcomes
        assert (outcome.name, outcome.status) == ("acme/widgets", "failed")
        assert outcome.error == (
            f"{_corrupt(clone, blob, head)}. Remove it and the next build clones it again"
        )
        assert len(calls) == 1
        assert await _guide_commit(engine) == before


async def test_a_clone_cloned_again_waits_for_a_fetch_to_finish_not_making_a_third(
    tmp_path, fake, monkeypatch
):
    # Cloning again is a transfer from the forge like a fetch, under the run's same limit.
    _one(fake)
    others = ("acme/x-one", "acme/x-two")  # listed after acme/widgets, so fetched after it
    for other in others:
        upstream(fake, other, {"README.md": f"# {other}\n"})
        fake.feed.append(other)
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await _with_marker(tmp_path, engine)
        for other in others:
            push(fake, other, {"README.md": f"# {other}\n\nMoved on.\n"})
        _, _, corrupting = _corrupted_once_fetched(fake, _clone(tmp_path, "acme/widgets"))
        transfers = Transfers(monkeypatch, "acme/widgets")
        report = await refresh_beside_two(engine, transfers, corrupting)
    assert transfers.cloning_again.is_set()
    assert sorted((o.name, o.status) for o in report.outcomes) == [
        ("acme/widgets", "indexed"),
        ("acme/x-one", "indexed"),
        ("acme/x-two", "indexed"),
    ]
    assert transfers.most == 2


async def test_a_failed_listing_changes_nothing(tmp_path, fake):
    _one(fake)
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        fake.rules = [Rule(r"/groups/", status=500)]
        report = await engine.refresh()
        assert report.errors and "500" in report.errors[0]
        assert not report.ok
        assert [(s.name, s.verdict) for s in await engine.sources()] == [
            ("acme/widgets", "admitted")
        ]
        assert (await engine.retrieve("frobnication")).results
    assert _clone(tmp_path, "acme/widgets").is_dir()


async def test_a_source_that_stops_qualifying_loses_clone_and_documents(tmp_path, fake):
    _one(fake)
    upstream(fake, "acme/other", {"README.md": "# Other\n\nGears.\n"})
    upstream(fake, "acme/gone", {"README.md": "# Gone\n\nSprings.\n"})
    fake.feed += ["acme/other", "acme/gone"]
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        assert all(_clone(tmp_path, p.path).is_dir() for p in fake.projects)
        fake.project("acme/widgets").visibility = "private"
        fake.projects.remove(fake.project("acme/gone"))  # deleted, or hidden from this token
        # other: its branch moved and its site config cannot be read, so it is unresolved
        push(fake, "acme/other", {"README.md": "# Other\n\nGears turn.\n"})
        fake.rules = [Rule(r"/projects/2/repository/files/", status=500)]
        await engine.refresh()
        states = {s.name: s for s in await engine.sources()}
        assert (states["acme/widgets"].verdict, states["acme/widgets"].clause) == (
            "rejected",
            "visibility",
        )
        assert (states["acme/gone"].verdict, states["acme/gone"].clause) == ("rejected", "group")
        assert states["acme/widgets"].documents == states["acme/gone"].documents == 0
        assert (states["acme/other"].verdict, states["acme/other"].documents) == ("unresolved", 1)
        assert not (await engine.retrieve("springs frobnication")).results
    assert not _clone(tmp_path, "acme/widgets").exists()
    assert not _clone(tmp_path, "acme/gone").exists()
    assert _clone(tmp_path, "acme/other").is_dir()


async def test_a_clone_another_configuration_made_in_a_shared_directory_is_left_alone(
    tmp_path, fake
):
    _one(fake)
    # Another configuration, of another group, clones into the same directory (as every one
    # that leaves index.clones unset does): its clone is not this index's to delete.
    foreign = _clone(tmp_path, "beta/tools")
    make_repo(foreign, {"README.md": "# Tools\n"})
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        fake.project("acme/widgets").visibility = "private"
        report = await engine.refresh()
        assert report.clones_deleted == ("acme/widgets",)
    assert foreign.is_dir() and not _clone(tmp_path, "acme/widgets").exists()


def _moved_behind_a_link(clone: Path) -> None:
    # Moved to another disk, say, a link left in its place: shutil.rmtree refuses to delete
    # through a link, even for root, which deletes through any permission.
    clone.rename(clone.parent.parent / "moved-clone")
    clone.symlink_to(clone.parent.parent / "moved-clone")


def _undeletable(clone: Path) -> str:
    return (
        f"the clone of acme/widgets at {clone} could not be deleted (Cannot call rmtree on a "
        "symbolic link). Nothing reads it any more, so the index is as it would be without it; "
        "delete it by hand, or let the user phpbotscout runs delete it"
    )


async def test_a_clone_that_cannot_be_deleted_is_reported_and_the_run_goes_on(tmp_path, fake):
    _one(fake)
    upstream(fake, "acme/gadgets", {"README.md": "# Gadgets\n\nGizmos.\n"})
    fake.feed = ["acme/widgets", "acme/gadgets"]
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        clone = _clone(tmp_path, "acme/widgets")
        _moved_behind_a_link(clone)
        fake.project("acme/widgets").visibility = "private"
        push(fake, "acme/gadgets", {"README.md": "# Gadgets\n\nWhirligigs.\n"})
        report = await engine.refresh()
        assert report.errors == (_undeletable(clone),) and not report.ok
        assert report.clones_deleted == ()
        assert [(o.name, o.status) for o in report.outcomes] == [("acme/gadgets", "indexed")]
        states = {s.name: s for s in await engine.sources()}
        widgets = states["acme/widgets"]
        assert (widgets.verdict, widgets.clause, widgets.documents) == ("rejected", "visibility", 0)
        assert (await engine.retrieve("whirligigs")).results
        assert not (await engine.retrieve("frobnication depth")).results
        clone.unlink()  # deleted by hand, as the error says
        report = await engine.refresh()
        assert report.ok, report.errors


async def test_without_a_group_a_clone_that_cannot_be_deleted_is_reported(tmp_path, fake):
    _one(fake)
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
    clone = _clone(tmp_path, "acme/widgets")
    _moved_behind_a_link(clone)
    make_repo(tmp_path / "handbook", {"README.md": "# Handbook\n\nFrobnication is an art.\n"})
    local_only = config_module.from_mapping(
        {
            "index": {"path": str(tmp_path / "index.sqlite"), "clones": str(tmp_path / "clones")},
            "sources": {"local": [str(tmp_path / "handbook")]},
        },
        env={},
        base=tmp_path,
    )
    async with await Engine.open(local_only) as engine:
        report = await engine.refresh()
        assert report.errors == (_undeletable(clone),)
        assert (report.removed, report.clones_deleted) == (("acme/widgets",), ())
        assert [(o.name, o.status) for o in report.outcomes] == [("handbook", "indexed")]
        assert [s.name for s in await engine.sources()] == ["handbook"]


async def test_a_project_deleted_mid_listing_keeps_the_others(tmp_path, fake):
    for name in ("acme/a", "acme/b", "acme/c"):
        upstream(fake, name, {"README.md": f"# {name}\n\nSprockets.\n"})
    fake.feed = [p.path for p in fake.projects]
    fake.page_size = 2
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        # acme/a is deleted once page 1 has been read: acme/c moves up onto page 1, and
        # page 2 comes back empty, so no page of this listing holds acme/c.
        fake.after_page[1] = lambda: fake.projects.remove(fake.project("acme/a"))
        await engine.refresh()
        states = {s.name: s for s in await engine.sources()}
        assert (states["acme/c"].verdict, states["acme/c"].clause) == ("admitted", "site")
        assert states["acme/c"].documents == 1
        await engine.refresh()  # the next listing no longer has acme/a, and GitLab confirms it
        states = {s.name: s for s in await engine.sources()}
        assert (states["acme/a"].verdict, states["acme/a"].clause) == ("rejected", "group")
    assert not _clone(tmp_path, "acme/a").exists()
    assert _clone(tmp_path, "acme/c").is_dir()


async def test_a_renamed_project_leaves_its_old_name_saying_where_it_went(tmp_path, fake):
    upstream(fake, "acme/widgets", {"README.md": "# Widgets\n\nSprockets.\n"})
    fake.feed = ["acme/widgets", "acme/gadgets"]
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        rename(fake, "acme/widgets", "acme/gadgets")
        for _ in range(2):  # the reason stands on the runs after, which ask nothing of it
            report = await engine.refresh()
            assert report.ok, report.errors
            states = {s.name: s for s in await engine.sources()}
            old, new = states["acme/widgets"], states["acme/gadgets"]
            assert (old.verdict, old.clause, old.documents) == ("rejected", "group", 0)
            assert "GitLab says the project is now acme/gadgets (renamed or moved)" in old.detail
            assert (new.verdict, new.clause, new.documents) == ("admitted", "site", 1)
    assert not _clone(tmp_path, "acme/widgets").exists()
    assert _clone(tmp_path, "acme/gadgets").is_dir()


async def test_a_project_renamed_in_letter_case_only_is_one_source_under_its_new_name(
    tmp_path, fake
):
    upstream(fake, "acme/Widgets", {"README.md": "# Widgets\n\nSprockets.\n"})
    fake.feed = ["acme/widgets"]  # the feed's paths ignore case, as GitLab's do
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        assert _clone(tmp_path, "acme/Widgets").is_dir()
        rename(fake, "acme/Widgets", "acme/widgets")
        report = await engine.refresh()
        assert report.ok, report.errors
        assert [c.name for c in report.candidates] == ["acme/widgets"]
        assert report.respelled == (("acme/Widgets", "acme/widgets"),)
        assert render.refresh_json(report)["respelled"] == [
            {"source": "acme/Widgets", "now": "acme/widgets"}
        ]
        assert report.clones_deleted == ("acme/Widgets",)
        for _ in range(2):  # and on the run after, which knows only the new spelling
            states = await engine.sources()
            assert [(s.name, s.verdict, s.clause, s.documents) for s in states] == [
                ("acme/widgets", "admitted", "site", 1)
            ]
            assert await catalog.fingerprints(engine.store, "acme/Widgets") == {}
            found = (await engine.retrieve("sprockets")).results
            assert found and {r.repo for r in found} == {"acme/widgets"}
            report = await engine.refresh()
            assert report.ok and report.respelled == (), report.errors
    assert not _clone(tmp_path, "acme/Widgets").exists()
    assert _clone(tmp_path, "acme/widgets").is_dir()


async def test_a_project_renamed_in_letter_case_only_is_not_asked_again_what_it_told(
    tmp_path, fake
):
    upstream(fake, "acme/Widgets", {"README.md": "# Widgets\n\nSprockets.\n"})
    fake.feed = ["acme/widgets"]
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        asked = [r.path for r in fake.log if "/repository/files/" in r.path]
        assert asked and all("zensical.toml" in path for path in asked)
        assert [r.method for r in fake.log if r.path.startswith("/sites/")] == ["HEAD"]
        rename(fake, "acme/Widgets", "acme/widgets")
        fake.clear_log()
        report = await engine.refresh()
        assert report.respelled == (("acme/Widgets", "acme/widgets"),)
        # The same project at the same commit: its site config and its site's answer stand.
        assert [r.path for r in fake.log if "/repository/files/" in r.path] == []
        assert [r.path for r in fake.log if r.path.startswith("/sites/")] == []
        (state,) = await engine.sources()
        assert (state.name, state.verdict, state.clause) == ("acme/widgets", "admitted", "site")
        assert "last answered at" in state.detail


async def test_a_source_named_in_its_old_letter_case_refreshes_it_under_the_new_one(tmp_path, fake):
    # A push sent before the rename, or a command typed from memory, names the old spelling.
    upstream(fake, "acme/Widgets", {"README.md": "# Widgets\n\nSprockets.\n"})
    upstream(fake, "acme/gadgets", {"README.md": "# Gadgets\n\nGizmos.\n"})
    fake.feed = ["acme/widgets", "acme/gadgets"]
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        rename(fake, "acme/Widgets", "acme/widgets")
        push(fake, "acme/gadgets", {"README.md": "# Gadgets\n\nWhirligigs.\n"})
        report = await engine.refresh(only=["acme/Widgets"])
        assert report.ok, report.errors
        assert [(o.name, o.status) for o in report.outcomes] == [("acme/widgets", "indexed")]
        assert report.respelled == (("acme/Widgets", "acme/widgets"),)
        assert [s.name for s in await engine.sources()] == ["acme/gadgets", "acme/widgets"]
        assert not (await engine.retrieve("whirligigs")).results  # not named, not refreshed


async def test_a_project_listed_twice_is_decided_fetched_and_indexed_once(tmp_path, fake):
    for name in ("acme/a", "acme/b", "acme/c", "acme/d"):
        upstream(fake, name, {"README.md": f"# {name}\n\nSprockets.\n"})
    moved = upstream(fake, "acme/moved", {"README.md": "# Moved\n\nSprockets.\n"})
    fake.projects.remove(moved)
    fake.feed = [p.path for p in fake.projects] + [moved.path]
    fake.page_size = 2
    # A project moved into the group once page 1 has been read is listed ahead of the others:
    # acme/b, last on page 1, is pushed onto page 2 as well.
    fake.after_page[1] = lambda: fake.projects.insert(0, moved)
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        report = await engine.refresh()
        names = ["acme/a", "acme/b", "acme/c", "acme/d"]
        assert sorted(c.name for c in report.candidates) == names
        assert sorted(o.name for o in report.outcomes) == names
        assert {o.status for o in report.outcomes} == {"indexed"}
        assert [(s.name, s.documents) for s in await engine.sources()] == [(n, 1) for n in names]

        def asked(path: str) -> list[tuple[str, str]]:
            requests = fake.requests_for(fake.project(path))
            return sorted((r.method, r.path.rpartition("/")[2]) for r in requests)

        assert asked("acme/b") == asked("acme/a")  # its refs, its site config, one clone
        await engine.refresh()  # the next listing has the moved project in its place
        assert [s.name for s in await engine.sources()] == sorted([*names, "acme/moved"])


async def test_an_unlisted_source_that_cannot_be_confirmed_gone_is_kept(tmp_path, fake):
    _one(fake)
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        fake.projects.clear()
        fake.rules = [Rule(r"^/api/v4/projects/acme(%2F|/)widgets$", status=503)]
        await engine.refresh()
        (state,) = await engine.sources()
        assert (state.verdict, state.clause) == ("unresolved", "group")
        assert "HTTP 503" in state.detail
        assert state.documents > 0
    assert _clone(tmp_path, "acme/widgets").is_dir()


async def test_without_a_group_every_gitlab_source_leaves_with_its_clone(tmp_path, fake):
    _one(fake)
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
    assert _clone(tmp_path, "acme/widgets").is_dir()
    make_repo(tmp_path / "handbook", {"README.md": "# Handbook\n\nFrobnication is an art.\n"})
    local_only = config_module.from_mapping(
        {
            "index": {"path": str(tmp_path / "index.sqlite"), "clones": str(tmp_path / "clones")},
            "sources": {"local": [str(tmp_path / "handbook")]},
        },
        env={"GITLAB_TOKEN": TOKEN},
        base=tmp_path,
    )
    async with await Engine.open(local_only) as engine:
        report = await engine.refresh()
        assert report.removed == ("acme/widgets",)
        assert report.clones_deleted == ("acme/widgets",)
        assert [s.name for s in await engine.sources()] == ["handbook"]
        found = (await engine.retrieve("frobnication")).results
        assert found and {r.repo for r in found} == {"handbook"}
        assert await catalog.fingerprints(engine.store, "acme/widgets") == {}  # no document left
    assert not _clone(tmp_path, "acme/widgets").exists()


async def test_a_source_that_loses_its_site_keeps_only_readme_code_and_changelog(tmp_path, fake):
    _lib_in_a_siteless_subgroup(fake)
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        assert (await engine.retrieve("frobnication depth")).results
        fake.project("acme/go/lib").pages_access_level = "disabled"  # read live, every run
        await engine.refresh()
        (state,) = await engine.sources()
        assert (state.verdict, state.clause) == ("admitted", "siteless")
        assert "pages_access_level is disabled" in state.detail
        assert not (await engine.retrieve("frobnication depth")).results
        (readme,) = (await engine.retrieve("levers")).results
        # Cited on the forge: the project's web page, the file at the indexed commit, its lines.
        head = git(fake.repo_dir("acme/go/lib"), "rev-parse", "HEAD")
        assert readme.url == f"{fake.url}/acme/go/lib/-/blob/{head}/README.md#L1-3"


async def test_a_site_seen_answering_is_trusted_until_the_branch_moves(tmp_path, fake):
    _lib_in_a_siteless_subgroup(fake)
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        fake.sites["lib"] = 404  # taken down, with Pages still on and nothing pushed
        fake.clear_log()
        await engine.refresh()
        (state,) = await engine.sources()
        assert not [r for r in fake.log if r.path.startswith("/sites/")]
        assert (state.verdict, state.clause) == ("admitted", "site")
        assert "last answered at" in state.detail
        push(fake, "acme/go/lib", {"README.md": "# Lib\n\nLevers and pulleys.\n"})
        await engine.refresh()
        (state,) = await engine.sources()
        assert [r.method for r in fake.log if r.path.startswith("/sites/")] == ["HEAD"]
        assert (state.verdict, state.clause) == ("admitted", "siteless")
        assert "did not answer: HTTP 404" in state.detail
        assert not (await engine.retrieve("frobnication depth")).results
        fake.sites["lib"] = 200  # back: a failed site is asked again on the very next run
        await engine.refresh()
        (state,) = await engine.sources()
        assert (state.verdict, state.clause) == ("admitted", "site")
        assert "the site answered HTTP 200" in state.detail


async def test_a_site_check_interval_of_zero_asks_every_run(tmp_path, fake):
    _lib_in_a_siteless_subgroup(fake)
    config = configure(tmp_path, fake, token=TOKEN, index={"site_check_interval": "0"})
    async with await Engine.open(config) as engine:
        await engine.refresh()
        fake.sites["lib"] = 404
        await engine.refresh()
        (state,) = await engine.sources()
        assert (state.verdict, state.clause) == ("admitted", "siteless")
        assert not (await engine.retrieve("frobnication depth")).results


async def test_an_expired_site_answer_is_asked_again(tmp_path, fake):
    _one(fake)
    config = configure(tmp_path, fake, token=TOKEN, index={"site_check_interval": "1s"})
    async with await Engine.open(config) as engine:
        await engine.refresh()
        async with engine.store.write() as conn:  # the answer is older than the interval
            await conn.execute("UPDATE sources SET site_seen_at = '2020-01-01T00:00:00+00:00'")
        fake.clear_log()
        await engine.refresh()
        (state,) = await engine.sources()
    assert len([r for r in fake.log if r.path.startswith("/sites/")]) == 1
    assert "the site answered HTTP 200" in state.detail


def test_clone_leftovers_of_an_interrupted_run_are_removed(tmp_path):
    from bot.clones import Clones

    root = tmp_path / "clones"
    (root / "+tmp-abc" / "x").mkdir(parents=True)
    (root / "+old-abc").mkdir()
    (root / "acme%2Fkeep").mkdir()
    os.chmod(root, 0o755)
    clones = Clones(root, {})
    clones.prepare()
    assert sorted(p.name for p in root.iterdir()) == ["+lock", "acme%2Fkeep"]
    assert clones.names() == {"acme/keep"}
    assert stat.S_IMODE(root.stat().st_mode) == 0o700


def test_another_process_clone_in_progress_is_never_swept(tmp_path):
    from bot.clones import Clones
    from bot.errors import ForgeError

    root = tmp_path / "clones"
    root.mkdir()
    (root / "+tmp-theirs" / ".git").mkdir(parents=True)
    with another_process_holding(root):
        with pytest.raises(ForgeError, match="in use by another process"):
            Clones(root, {}, lock_wait=0).prepare()
        assert (root / "+tmp-theirs" / ".git").is_dir()
    clones = Clones(root, {}, lock_wait=0)
    clones.prepare()  # the other process has finished: its leftovers are ours to remove
    assert not (root / "+tmp-theirs").exists()
    with pytest.raises(ForgeError, match="in use by another process"):
        Clones(root, {}, lock_wait=0).prepare()  # and now this one holds the directory
    clones.release()
    Clones(root, {}, lock_wait=0).prepare()


async def _logged(caplog: pytest.LogCaptureFixture, text: str) -> None:
    async with asyncio.timeout(10):
        while text not in caplog.text:
            await asyncio.sleep(0.01)  # polls for the log line; decides nothing by itself


@contextlib.asynccontextmanager
async def _run_kept_waiting(tmp_path, fake, caplog) -> AsyncIterator[tuple[asyncio.Task, Path]]:
    """A refresh started while another process holds the clones, and seen to wait for them.

    When the block ends the other process lets go, and the run is waited for before the
    index closes.
    """
    _one(fake)
    root = _clone(tmp_path, "acme/widgets").parent
    root.mkdir(parents=True)
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        with another_process_holding(root):
            run = asyncio.create_task(engine.refresh())
            await _logged(caplog, "another process is refreshing the clones")
            yield run, root
        await asyncio.wait({run})


async def test_a_run_waits_for_another_process_then_goes_on(tmp_path, fake, caplog):
    async with _run_kept_waiting(tmp_path, fake, caplog) as (run, _):
        assert not run.done()
    report = run.result()  # it went on once the other process had finished
    assert [o.status for o in report.outcomes] == ["indexed"]


async def test_a_run_stopped_while_it_waits_for_the_clones_holds_nothing(tmp_path, fake, caplog):
    async with _run_kept_waiting(tmp_path, fake, caplog) as (run, root):
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
    # Nothing of the stopped run goes on to take the directory once it is free.
    clones_module.Clones(root, {}, lock_wait=0).prepare()


async def test_a_wrong_token_for_git_says_to_set_or_renew_it(tmp_path, fake):
    _one(fake)
    wrong = "glpat-not-the-right-one"
    async with await Engine.open(configure(tmp_path, fake, token=wrong)) as engine:
        report = await engine.refresh()
    (outcome,) = report.outcomes
    assert outcome.status == "failed"
    assert "HTTP 401" in (outcome.error or "")
    assert "GITLAB_TOKEN is missing, wrong or expired" in (outcome.error or "")
    assert wrong not in (outcome.error or "")


@pytest.mark.parametrize(
    ("status", "says"),
    [
        (403, "lacks the read_repository scope"),
        (500, "HTTP 500); the clone, if any, is kept. Try again later"),
        (503, "HTTP 503); the clone, if any, is kept. Try again later"),
    ],
)
async def test_git_refused_or_failing_says_what_to_do(tmp_path, fake, status, says):
    _one(fake)
    fake.rules = [Rule(r"\.git/info/refs", status=status)]
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        report = await engine.refresh()
    (outcome,) = report.outcomes
    assert outcome.status == "failed"
    assert says in (outcome.error or "")
    assert TOKEN not in (outcome.error or "")


async def test_git_rate_limited_stops_the_run_and_keeps_the_clone(tmp_path, fake):
    _one(fake)
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        before = await _guide_commit(engine)
        push(fake, "acme/widgets", {"docs/guide.md": GUIDE + "\nNew.\n"})
        fake.rules = [Rule(r"\.git/", status=429, skip=1)]
        with pytest.raises(RateLimited, match="rate-limited git"):
            await engine.refresh()
        assert await _guide_commit(engine) == before
    assert (_clone(tmp_path, "acme/widgets") / ".git").is_dir()


async def test_a_stalled_repository_fails_at_once_with_a_warning(
    tmp_path, fake, monkeypatch, caplog
):
    monkeypatch.setattr(clones_module, "LOW_SPEED_TIME", 1)
    _one(fake)
    fake.rules = [Rule(r"\.git/info/refs", delay=8)]  # answers long after git gave up
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        report = await engine.refresh()
    (outcome,) = report.outcomes
    assert outcome.status == "failed"
    assert "the repository stalled" in (outcome.error or "")
    assert "for 1 s" in (outcome.error or "")
    assert any("gave up" in r.getMessage() for r in caplog.records if r.levelname == "WARNING")


async def test_a_git_command_out_of_time_is_killed_with_a_warning(
    tmp_path, fake, monkeypatch, caplog
):
    monkeypatch.setattr(clones_module, "GIT_TIMEOUT", 1.0)
    _one(fake)
    # Still within the stall detection's 30 s when the command runs out of time.
    fake.rules = [Rule(r"\.git/info/refs", delay=8)]
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        report = await engine.refresh()
    (outcome,) = report.outcomes
    assert outcome.status == "failed"
    assert "did not finish within 1 s and was stopped" in (outcome.error or "")
    assert any("was killed" in r.getMessage() for r in caplog.records if r.levelname == "WARNING")


async def test_a_refresh_stopped_while_git_clones_and_fetches_ends_git_and_keeps_the_old(
    tmp_path, fake
):
    # A stalled forge, or a large repository: neither transfer ever finishes by itself.
    _one(fake)
    async with await Engine.open(configure(tmp_path, fake, token=TOKEN)) as engine:
        await engine.refresh()
        before = await _guide_commit(engine)
        push(fake, "acme/widgets", {"docs/guide.md": GUIDE + "\nAnd eight on Fridays.\n"})
        upstream(fake, "acme/gadgets", {"README.md": "# Gadgets\n", "docs/guide.md": GUIDE})
        fake.feed.append("acme/gadgets")
        held = [
            Rule(rf"{name}\.git/git-upload-pack", release=threading.Event())
            for name in ("widgets", "gadgets")
        ]
        fake.rules = held
        refreshing = asyncio.create_task(engine.refresh())
        for rule in held:  # the fetch of widgets and the clone of gadgets are both under way
            assert await asyncio.to_thread(rule.arrived.wait, 60)
        git_processes = [
            p
            for p in descendants(os.getpid())
            if "http-backend" not in p.command and "ranking_process" not in p.command
        ]
        assert any("clone" in p.command for p in git_processes), git_processes

        refreshing.cancel()
        async with asyncio.timeout(20):  # the stall detection alone would take 30 s
            with pytest.raises(asyncio.CancelledError):
                await refreshing

        assert not any(rule.release.is_set() for rule in held if rule.release)
        assert [p for p in git_processes if p.running()] == []
        assert sorted(p.name for p in (tmp_path / "clones").iterdir()) == [
            "+lock",
            "acme%2Fwidgets",
        ]
        widgets = _clone(tmp_path, "acme/widgets")
        assert git(widgets, "rev-parse", "HEAD") == before
        assert git(widgets, "status", "--porcelain") == ""
        fake.rules = []
        assert await _guide_commit(engine) == before  # the previous index answers on
        assert await _outcomes(engine) == {"acme/widgets": "indexed", "acme/gadgets": "indexed"}


@pytest.mark.parametrize("blocked", ["clones", "clones/+lock"])
async def test_a_clones_directory_that_cannot_be_used_stops_the_run_saying_so(
    tmp_path, fake, blocked
):
    # A file where the directory should be, or a directory where its lock file should be:
    # the same failure, whoever runs it, as a directory this user may not write.
    _one(fake)
    config = configure(tmp_path, fake, token=TOKEN)
    async with await Engine.open(config) as engine:
        await engine.refresh()
        before = await _guide_commit(engine)
        shutil.rmtree(tmp_path / "clones")
        if blocked == "clones":
            (tmp_path / "clones").write_text("not a directory\n")
        else:
            (tmp_path / "clones" / "+lock").mkdir(parents=True)
        push(fake, "acme/widgets", {"docs/guide.md": "# Guide\n\nMoved on.\n"})
        with pytest.raises(SourceError, match=r"clones directory .* \(index\.clones\) cannot be"):
            await engine.refresh()
        assert await _guide_commit(engine) == before  # the previous index answers on


def test_a_clone_that_cannot_be_swapped_in_leaves_the_old_one_where_it_was(tmp_path, monkeypatch):
    from bot.clones import Clones

    upstream_repo = tmp_path / "upstream"
    make_repo(upstream_repo, {"README.md": "# Widgets\n"})
    url = upstream_repo.resolve().as_uri()
    clones = Clones(tmp_path / "clones", {})
    clones.prepare()
    old = clones.clone_again("acme/widgets", url, "main", None, "a test").path
    (old / ".git" / "kept-marker").write_text("kept\n", encoding="utf-8")
    _no_room_for_a_new_clone(monkeypatch, old)
    with pytest.raises(OSError, match="No space left"):
        clones.clone_again("acme/widgets", url, "main", None, "it was damaged")
    assert (old / ".git" / "kept-marker").read_text(encoding="utf-8") == "kept\n"
    assert sorted(p.name for p in old.parent.iterdir()) == ["+lock", old.name]
    clones.release()
