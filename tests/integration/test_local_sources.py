"""Which repositories on disk ``sources.local`` names, and what each is reported as."""

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bot import config as config_module
from bot import render
from bot.engine import Engine
from bot.forge.candidates import Verdict
from bot.forge.local import discover_local
from bot.outcomes import QuietProgress
from tests.denied import may_not_read
from tests.gitrepo import commit, corrupt_loose_object, git, make_repo

README = "# Alpha\n\nAlpha turns sprockets into gears.\n"


def _config(base: Path, *local: str, exclude: tuple[str, ...] = ()) -> config_module.Config:
    raw: dict[str, object] = {
        "sources": {"local": list(local), "exclude": list(exclude)},
        "index": {"path": str(base / "index.sqlite")},
    }
    return config_module.from_mapping(raw, env={}, base=base)


def _verdicts(report) -> dict[str, tuple[str, str, str]]:
    return {c.name: (c.verdict.value, c.clause, c.detail) for c in report.candidates}


async def test_one_repository_listed_several_ways_is_indexed_once(tmp_path):
    alpha = tmp_path / "repos" / "alpha"
    make_repo(alpha, {"README.md": README})
    base = tmp_path / "w2"
    base.mkdir()
    (tmp_path / "link").symlink_to(alpha)
    listed = ["../repos/alpha", str(alpha), "../repos/alpha/", "../repos", "../link"]
    async with await Engine.open(_config(base, *listed)) as engine:
        report = await engine.refresh()
        assert report.ok
        assert [(o.name, o.status) for o in report.outcomes] == [("alpha", "indexed")]
        assert [c.name for c in report.candidates] == ["alpha"]
        alpha_candidate = report.candidates[0]
        assert alpha_candidate.verdict is Verdict.ADMITTED
        assert alpha_candidate.location == str(alpha)
        assert alpha_candidate.detail == (
            f"listed in sources.local (also reached as {tmp_path / 'link'}; read once)"
        )


def _stored(states) -> dict[str, tuple[str, str, str, str]]:
    return {s.name: (s.location, s.verdict, s.clause, s.detail) for s in states}


def _duplicate_of(first: Path) -> str:
    return (
        "is another repository called 'alpha', so it is not indexed: the name goes to "
        f"{first}, which sources.local reaches first. Rename one of them to index both"
    )


async def test_two_repositories_with_one_name_are_a_duplicate_naming_both(tmp_path):
    first, second = tmp_path / "a" / "alpha", tmp_path / "b" / "alpha"
    make_repo(first, {"README.md": README})
    make_repo(second, {"README.md": README})
    base = tmp_path / "w2"
    base.mkdir()
    async with await Engine.open(_config(base, "../a/alpha", "../b")) as engine:
        report = await engine.refresh()
    verdicts = _verdicts(report)
    assert verdicts["alpha"][:2] == ("admitted", "local")
    assert verdicts[f"alpha (duplicate at {second})"] == (
        "unresolved",
        "duplicate",
        f"{second} {_duplicate_of(first)}",
    )


async def test_every_later_repository_of_a_name_is_stored_and_explained_on_its_own(tmp_path):
    roots = [tmp_path / root for root in ("c", "a", "b")]
    for root in roots:
        make_repo(root / "alpha", {"README.md": README})
    make_repo(tmp_path / "a" / "beta", {"README.md": README})
    first, *later = (root / "alpha" for root in roots)
    listed = [str(root) for root in roots]
    async with await Engine.open(_config(tmp_path, *listed)) as engine:
        report = await engine.refresh()
        assert [(o.name, o.status) for o in report.outcomes] == [
            ("alpha", "indexed"),
            ("beta", "indexed"),
        ]
        stored = _stored(await engine.sources())
    assert stored["alpha"][:3] == (str(first), "admitted", "local")
    for path in later:
        assert stored[f"alpha (duplicate at {path})"] == (
            str(path),
            "unresolved",
            "duplicate",
            f"{path} {_duplicate_of(first)}",
        )
    assert len(stored) == 4


async def test_every_excluded_repository_of_a_name_is_stored_with_its_own_path(tmp_path):
    first, second = tmp_path / "a" / "alpha", tmp_path / "b" / "alpha"
    make_repo(first, {"README.md": README})
    make_repo(second, {"README.md": README})
    async with await Engine.open(_config(tmp_path, "a", "b", exclude=("alpha",))) as engine:
        await engine.refresh()
        stored = _stored(await engine.sources())
    excluded = ("rejected", "excluded", "listed in sources.exclude")
    assert stored == {
        "alpha": (str(first), *excluded),
        f"alpha (duplicate at {second})": (str(second), *excluded),
    }


def _missing(path: Path) -> tuple[str, str, str, str]:
    return (
        str(path),
        "unresolved",
        "missing",
        f"{path} does not exist: correct or remove the path in sources.local",
    )


@pytest.mark.parametrize("missing_first", [False, True], ids=["after", "before"])
async def test_a_missing_entry_never_takes_the_name_of_a_repository_found(tmp_path, missing_first):
    alpha, gone = tmp_path / "estate" / "alpha", tmp_path / "gone" / "alpha"
    make_repo(alpha, {"README.md": README})
    listed = ["estate", "gone/alpha"]
    async with await Engine.open(_config(tmp_path, *sorted(listed, reverse=missing_first))) as e:
        report = await e.refresh()
        assert [(o.name, o.status) for o in report.outcomes] == [("alpha", "indexed")]
        stored = _stored(await e.sources())
    assert stored == {
        "alpha": (str(alpha), "admitted", "local", "listed in sources.local"),
        f"alpha (missing at {gone})": _missing(gone),
    }


async def test_a_missing_entry_never_takes_the_name_of_a_repository_indexed_elsewhere(tmp_path):
    estate = tmp_path / "estate"
    make_repo(estate / "alpha", {"README.md": README})
    async with await Engine.open(_config(tmp_path, "estate")) as engine:
        await engine.refresh()
    estate.rename(tmp_path / "unmounted")  # what it held keeps its last index
    gone = tmp_path / "gone" / "alpha"
    async with await Engine.open(_config(tmp_path, "estate", "gone/alpha", "x/alpha")) as engine:
        report = await engine.refresh()
        assert report.removed == ()
        stored = _stored(await engine.sources())
        top = (await engine.retrieve("what turns sprockets into gears?")).results[0]
        assert (top.repo, top.path) == ("alpha", "README.md")
    assert stored == {
        "alpha": (str(estate / "alpha"), "admitted", "local", "listed in sources.local"),
        f"estate (missing at {estate})": _missing(estate),
        f"alpha (missing at {gone})": _missing(gone),
        f"alpha (missing at {tmp_path / 'x' / 'alpha'})": _missing(tmp_path / "x" / "alpha"),
    }
    async with await Engine.open(_config(tmp_path, "gone/alpha")) as engine:
        report = await engine.refresh()
        assert set(report.removed) == set(stored) - {f"alpha (missing at {gone})"}
        assert _stored(await engine.sources()) == {f"alpha (missing at {gone})": _missing(gone)}


async def test_a_bare_repository_whose_own_directory_went_missing_is_the_one_reported(tmp_path):
    make_repo(tmp_path / "work" / "alpha", {"README.md": README})
    mirror = tmp_path / "alpha.git"
    git(tmp_path, "clone", "-q", "--bare", str(tmp_path / "work" / "alpha"), str(mirror))
    async with await Engine.open(_config(tmp_path, "alpha.git")) as engine:
        await engine.refresh()
        mirror.rename(tmp_path / "unmounted.git")
        report = await engine.refresh()
        assert report.removed == ()
        (state,) = await engine.sources()
        assert (state.name, *_missing(mirror)) == (
            "alpha",
            state.location,
            state.verdict,
            state.clause,
            state.detail,
        )
        assert state.documents == 1


async def test_a_file_listed_as_a_source_is_said_to_be_a_file(tmp_path):
    (tmp_path / "notes.md").write_text("# Notes\n")
    async with await Engine.open(_config(tmp_path, "notes.md")) as engine:
        report = await engine.refresh()
    assert _verdicts(report)[f"notes.md (missing at {tmp_path / 'notes.md'})"] == (
        "unresolved",
        "missing",
        f"{tmp_path / 'notes.md'} is a file, not a repository or a directory of repositories: "
        "correct or remove the path in sources.local",
    )


async def test_a_repository_missing_its_commit_is_reported_damaged_with_what_to_do(tmp_path):
    alpha = tmp_path / "repos" / "alpha"
    head = make_repo(alpha, {"README.md": README})
    (alpha / ".git" / "objects" / head[:2] / head[2:]).unlink()
    async with await Engine.open(_config(tmp_path, str(alpha))) as engine:
        report = await engine.refresh()
    assert [o.name for o in report.failed] == ["alpha"]
    assert report.failed[0].error == (
        f"{alpha} is damaged: commit {head[:12]} (HEAD) is missing from its object store. "
        "Run 'git fsck' in it to see what else is lost, then 'git fetch --refetch' (git 2.36 or "
        "later) to get every object again from its remote, or restore it from a backup, or clone "
        "it again"
    )


async def test_a_repository_whose_commit_is_corrupt_is_not_called_missing_it(tmp_path):
    # A fetch cannot repair an object git holds but cannot read: the repair differs.
    alpha = tmp_path / "repos" / "alpha"
    head = make_repo(alpha, {"README.md": README})
    corrupt_loose_object(alpha, head)
    async with await Engine.open(_config(tmp_path, str(alpha))) as engine:
        report = await engine.refresh()
    assert [o.name for o in report.failed] == ["alpha"]
    assert report.failed[0].error == (
        f"{alpha} is damaged: commit {head[:12]} (HEAD) is in its object store but corrupt "
        f"(loose object {head} (stored in .git/objects/{head[:2]}/{head[2:]}) is corrupt). A "
        "fetch stops at it, so cannot repair it: run 'git fsck' in it to see what else is "
        "corrupt, then clone it again or restore it from a backup"
    )


async def test_a_damaged_repository_of_the_operators_own_is_never_replaced_or_moved(tmp_path):
    # Only a clone phpbotscout keeps itself is cloned again: this one is the operator's.
    repos = tmp_path / "repos"
    alpha = repos / "alpha"
    head = make_repo(alpha, {"README.md": README})
    corrupt_loose_object(alpha, head)
    before = {p: p.read_bytes() for p in alpha.rglob("*") if p.is_file()}
    async with await Engine.open(_config(tmp_path, str(alpha))) as engine:
        report = await engine.refresh()
    assert [o.name for o in report.failed] == ["alpha"]
    assert {p: p.read_bytes() for p in alpha.rglob("*") if p.is_file()} == before
    assert [p.name for p in repos.iterdir()] == ["alpha"]


async def test_a_working_tree_git_cannot_read_fails_saying_why_and_keeps_its_index(tmp_path):
    alpha = tmp_path / "repos" / "alpha"
    make_repo(alpha, {"README.md": README})
    async with await Engine.open(_config(tmp_path, str(alpha))) as engine:
        assert (await engine.refresh()).ok
        (alpha / ".git" / "config").write_text("[core\n", encoding="utf-8")
        report = await engine.refresh()
        assert report.removed == ()
        assert [(o.name, o.error) for o in report.failed] == [
            (
                "alpha",
                f"{alpha} cannot be read by git (bad config line 1 in file .git/config): run "
                "'git status' in it to see what is wrong, and repair it",
            )
        ]
        top = (await engine.retrieve("what turns sprockets into gears?")).results[0]
        assert (top.repo, top.path) == ("alpha", "README.md")


async def test_bare_repositories_are_indexed_under_their_name_without_git(tmp_path):
    work = tmp_path / "work"
    make_repo(work / "alpha", {"README.md": README})
    make_repo(work / "beta", {"README.md": "# Beta\n\nBeta bends gears into sprockets.\n"})
    mirrors = tmp_path / "mirrors"
    git(tmp_path, "clone", "-q", "--mirror", str(work / "alpha"), str(mirrors / "alpha.git"))
    git(tmp_path, "clone", "-q", "--bare", str(work / "beta"), str(tmp_path / "beta.git"))
    async with await Engine.open(_config(tmp_path, "mirrors", "beta.git")) as engine:
        report = await engine.refresh()
        assert report.ok
        assert sorted((o.name, o.status) for o in report.outcomes) == [
            ("alpha", "indexed"),
            ("beta", "indexed"),
        ]
        top = (await engine.retrieve("what turns sprockets into gears?")).results[0]
        assert (top.repo, top.path) == ("alpha", "README.md")


async def test_a_repository_with_no_commit_yet_is_rejected_as_empty_not_failed(tmp_path):
    repos = tmp_path / "repos"
    make_repo(repos / "alpha", {"README.md": README})
    (repos / "fresh").mkdir()
    git(repos / "fresh", "init", "-q")
    git(tmp_path, "init", "-q", "--bare", str(tmp_path / "bare.git"))
    async with await Engine.open(_config(tmp_path, "repos", "bare.git")) as engine:
        report = await engine.refresh()
    assert report.ok
    assert [o.name for o in report.outcomes] == ["alpha"]
    empty = ("rejected", "empty", "has no commits yet; it is indexed once something is committed")
    assert _verdicts(report)["fresh"] == empty
    assert _verdicts(report)["bare"] == empty


async def test_exclusions_ignore_case_as_gitlab_ones_do(tmp_path):
    for name in ("alpha", "Beta"):
        make_repo(tmp_path / "repos" / name, {"README.md": README})
    async with await Engine.open(_config(tmp_path, "repos", exclude=("ALPHA", "/beta/"))) as e:
        report = await e.refresh()
    assert report.outcomes == ()
    excluded = ("rejected", "excluded", "listed in sources.exclude")
    assert _verdicts(report) == {"alpha": excluded, "Beta": excluded}


async def test_an_excluded_entry_that_is_not_there_is_excluded_not_missing(tmp_path):
    alpha = tmp_path / "gone" / "alpha"
    make_repo(alpha, {"README.md": README})
    async with await Engine.open(_config(tmp_path, "gone/alpha")) as engine:
        await engine.refresh()
    alpha.rename(tmp_path / "unmounted")
    (tmp_path / "notes.md").write_text("# Notes\n")
    listed = ("gone/alpha", "gone/beta.git", "notes.md", "shelf/alpha")
    make_repo(tmp_path / "shelf" / "alpha", {"README.md": README})
    excluded = ("rejected", "excluded", "listed in sources.exclude")
    config = _config(tmp_path, *listed, exclude=("Alpha", "beta", "NOTES.md"))
    async with await Engine.open(config) as engine:
        report = await engine.refresh()
        assert report.outcomes == ()
        assert _stored(await engine.sources()) == {
            "alpha": (str(alpha), *excluded),
            "beta": (str(tmp_path / "gone" / "beta.git"), *excluded),
            "notes.md": (str(tmp_path / "notes.md"), *excluded),
            f"alpha (duplicate at {tmp_path / 'shelf' / 'alpha'})": (
                str(tmp_path / "shelf" / "alpha"),
                *excluded,
            ),
        }
        assert {s.documents for s in await engine.sources()} == {0}  # alpha's index went


TOO_LONG = "x" * 300  # past any file system's limit on a name (NAME_MAX is 255)


def _unreadable(path: Path, reason: str) -> tuple[str, str, str, str]:
    detail = (
        f"{path} cannot be read ({reason}): correct the path in sources.local or let the user "
        "phpbotscout runs as read it"
    )
    return (str(path), "unresolved", "missing", detail)


async def test_a_path_the_system_cannot_read_is_unresolved_saying_why_not_a_crash(tmp_path):
    alpha = tmp_path / "estate" / "alpha"
    make_repo(alpha, {"README.md": README})
    unreadable = tmp_path / "shelf" / TOO_LONG
    unreadable.parent.mkdir()
    async with await Engine.open(_config(tmp_path, "estate", f"shelf/{TOO_LONG}")) as engine:
        report = await engine.refresh()
        assert [(o.name, o.status) for o in report.outcomes] == [("alpha", "indexed")]
        stored = _stored(await engine.sources())
    assert stored == {
        "alpha": (str(alpha), "admitted", "local", "listed in sources.local"),
        f"{TOO_LONG} (missing at {unreadable})": _unreadable(unreadable, "File name too long"),
    }


def _unreadable_entry(entry: Path, reason: str) -> tuple[str, str, str, str]:
    detail = (
        f"{entry} cannot be read ({reason}), so whether it is a repository is not known: let "
        f"the user phpbotscout runs as read it, or add {entry.name!r} to sources.exclude. The "
        f"other repositories in {entry.parent} are read as usual"
    )
    return (str(entry), "unresolved", "missing", detail)


BETA = "# Beta\n\nBeta polishes gears.\n"


async def _alpha_kept_and_beta_read_anew(engine: Engine) -> None:
    top = (await engine.retrieve("what turns sprockets into gears?")).results[0]
    assert (top.repo, top.path) == ("alpha", "README.md")  # answered from its last index
    top = (await engine.retrieve("what polishes cogs?")).results[0]
    assert (top.repo, top.path) == ("beta", "README.md")  # read anew


async def test_an_entry_that_cannot_be_examined_hides_none_of_its_siblings(tmp_path):
    estate = tmp_path / "estate"
    make_repo(estate / "alpha", {"README.md": README})
    make_repo(estate / "beta", {"README.md": BETA})
    async with await Engine.open(_config(tmp_path, "estate")) as engine:
        await engine.refresh()
        # Entries the system will not let us look at (a name past NAME_MAX fails to look up
        # as a directory the user may not read does, even for root): one where alpha was
        # indexed from, one never seen before.
        (estate / "alpha").rename(tmp_path / "alpha-elsewhere")
        (estate / "alpha").symlink_to(tmp_path / TOO_LONG)
        (estate / "link").symlink_to(tmp_path / TOO_LONG)
        commit(estate / "beta", {"README.md": "# Beta\n\nBeta polishes cogs.\n"})
        report = await engine.refresh()
        assert report.ok and report.removed == ()
        assert [(o.name, o.status) for o in report.outcomes] == [("beta", "indexed")]
        stored = _stored(await engine.sources())
        await _alpha_kept_and_beta_read_anew(engine)
    assert stored == {
        "alpha": _unreadable_entry(estate / "alpha", "File name too long"),
        "beta": (str(estate / "beta"), "admitted", "local", "listed in sources.local"),
        f"link (missing at {estate / 'link'})": _unreadable_entry(
            estate / "link", "File name too long"
        ),
    }


async def test_a_subdirectory_that_may_not_be_entered_hides_none_of_its_siblings(tmp_path):
    estate = tmp_path / "estate"
    make_repo(estate / "alpha", {"README.md": README})
    locked = estate / "locked"
    locked.mkdir(mode=0o000)
    try:
        if os.access(locked, os.X_OK):
            pytest.skip("this process enters directories it may not (root)")
        async with await Engine.open(_config(tmp_path, "estate")) as engine:
            report = await engine.refresh()
            stored = _stored(await engine.sources())
    finally:
        locked.chmod(0o755)
    assert [(o.name, o.status) for o in report.outcomes] == [("alpha", "indexed")]
    assert stored == {
        "alpha": (str(estate / "alpha"), "admitted", "local", "listed in sources.local"),
        f"locked (missing at {locked})": _unreadable_entry(
            locked, f"Permission denied: {locked / '.git'}"
        ),
    }


async def test_an_entry_that_cannot_be_examined_is_excluded_when_its_name_is(tmp_path):
    estate = tmp_path / "estate"
    make_repo(estate / "alpha", {"README.md": README})
    (estate / "Link.git").symlink_to(tmp_path / TOO_LONG)
    async with await Engine.open(_config(tmp_path, "estate", exclude=("link",))) as engine:
        report = await engine.refresh()
        assert [(o.name, o.status) for o in report.outcomes] == [("alpha", "indexed")]
        stored = _stored(await engine.sources())
    assert stored == {
        "alpha": (str(estate / "alpha"), "admitted", "local", "listed in sources.local"),
        "Link": (str(estate / "Link.git"), "rejected", "excluded", "listed in sources.exclude"),
    }


async def test_a_directory_that_cannot_be_listed_keeps_what_it_held(tmp_path):
    estate = tmp_path / "estate"
    make_repo(estate / "alpha", {"README.md": README})
    async with await Engine.open(_config(tmp_path, "estate")) as engine:
        await engine.refresh()
        estate.chmod(0o300)  # may be entered, not listed
        try:
            if os.access(estate, os.R_OK):
                pytest.skip("this process lists unreadable directories (root)")
            report = await engine.refresh()
        finally:
            estate.chmod(0o755)
        assert report.removed == () and report.outcomes == ()
        stored = _stored(await engine.sources())
    assert stored == {
        "alpha": (str(estate / "alpha"), "admitted", "local", "listed in sources.local"),
        f"estate (missing at {estate})": _unreadable(estate, "Permission denied"),
    }


class _ChangedOnceAdmitted(QuietProgress):
    """Changes a repository on disk as its refresh starts: after discovery has admitted it."""

    def __init__(self, name: str, change: Callable[[], None]) -> None:
        self.name, self.change = name, change

    def source_started(self, name: str) -> None:
        if name == self.name:
            self.change()


def _replace_with_file(path: Path) -> None:
    shutil.rmtree(path)
    path.write_text("not a repository\n", encoding="utf-8")


def _unreadable_now(path: Path) -> None:
    # A name past NAME_MAX fails to look up as a directory the user may not read does, even
    # for root, which reads through any permission.
    shutil.rmtree(path)
    path.symlink_to(path.parent / TOO_LONG)


_PUT_BACK = "put it back, or take it out of sources.local, and run the build again"


@pytest.mark.parametrize(
    ("change", "says", "todo"),
    [
        (shutil.rmtree, "no longer exists", _PUT_BACK),
        (_replace_with_file, "is a file now, not a git repository", _PUT_BACK),
        (lambda path: shutil.rmtree(path / ".git"), "is no longer a git repository", _PUT_BACK),
        (
            _unreadable_now,
            "cannot be read any more (File name too long)",
            "let the user phpbotscout runs as read it, or take it out of sources.local",
        ),
    ],
    ids=["removed", "a-file", "not-a-repository", "unreadable"],
)
async def test_a_repository_changed_after_discovery_fails_alone_and_keeps_its_index(
    tmp_path, change, says, todo
):
    estate = tmp_path / "estate"
    alpha, beta = estate / "alpha", estate / "beta"
    make_repo(alpha, {"README.md": README})
    make_repo(beta, {"README.md": BETA})
    async with await Engine.open(_config(tmp_path, "estate")) as engine:
        assert (await engine.refresh()).ok
        commit(alpha, {"README.md": "# Alpha\n\nAlpha turns sprockets into cogs.\n"})
        commit(beta, {"README.md": "# Beta\n\nBeta polishes cogs.\n"})
        progress = _ChangedOnceAdmitted("alpha", lambda: change(alpha))
        report = await engine.refresh(progress=progress)
        [failed] = report.failed
        assert (failed.name, failed.error) == (
            "alpha",
            f"{alpha} {says}: it changed after discovery admitted it, so nothing of it was read "
            f"this run and its last index keeps answering. To refresh it, {todo}",
        )
        assert [(o.name, o.status) for o in report.outcomes] == [
            ("alpha", "failed"),
            ("beta", "indexed"),
        ]
        assert render.refresh_json(report)["sources"][0]["error"] == failed.error
        states = await engine.sources()
        listed = {s["source"]: s["last_error"] for s in render.sources_json(states)}
        assert listed == {"alpha": failed.error, "beta": None}
        assert {s.name: s.documents for s in states} == {"alpha": 1, "beta": 1}
        await _alpha_kept_and_beta_read_anew(engine)


def _cannot_tell(path: Path, problem: str) -> tuple[str, str, str, str]:
    name = path.name.removesuffix(".git")
    todo = f"or add {name!r} to sources.exclude. Until then its last index, if any, keeps answering"
    return (str(path), "unresolved", "missing", f"{path} {problem}, {todo}")


async def _alpha_after(tmp_path: Path, alpha: Path, damage: Callable[[], object]):
    """What is stored of the repository ``alpha`` damaged after the estate was indexed.

    Only once its last index answered still and its sibling ``beta`` was read anew.
    """
    estate = tmp_path / "estate"
    make_repo(estate / "beta", {"README.md": BETA})
    async with await Engine.open(_config(tmp_path, "estate")) as engine:
        assert (await engine.refresh()).ok
        damage()
        commit(estate / "beta", {"README.md": "# Beta\n\nBeta polishes cogs.\n"})
        report = await engine.refresh()
        assert report.removed == ()
        assert [(o.name, o.status) for o in report.outcomes] == [("beta", "indexed")]
        stored = _stored(await engine.sources())
        await _alpha_kept_and_beta_read_anew(engine)
    return stored["alpha"]


async def test_a_repository_git_cannot_open_is_unresolved_alone_and_keeps_its_index(tmp_path):
    make_repo(tmp_path / "work" / "alpha", {"README.md": README})
    mirror = tmp_path / "estate" / "alpha.git"
    git(tmp_path, "clone", "-q", "--bare", str(tmp_path / "work" / "alpha"), str(mirror))
    config = mirror / "config"
    stored = await _alpha_after(
        tmp_path, mirror, lambda: config.write_text("not a git configuration\n", encoding="utf-8")
    )
    assert stored == _cannot_tell(
        mirror,
        "cannot be read by git (File contains no section headers): run 'git status' in it to "
        "see what is wrong, and repair it",
    )


class _ExclusionsThatChangeTheDisk:
    """No exclusions; reading them changes the disk once, as discovery checks a repository's.

    Discovery reads them after it has listed the repositories, just before it reads the first
    one's refs: the moment a repository moved or unmounted then is seen to be unreadable.
    """

    def __init__(self, change: Callable[[], None]) -> None:
        self.change: Callable[[], None] | None = change

    def __iter__(self) -> Iterator[str]:
        if self.change is not None:
            change, self.change = self.change, None
            change()
        return iter(())

    def __len__(self) -> int:
        return 0

    def __contains__(self, name: object) -> bool:
        return False


def test_a_repository_unreadable_once_listed_is_unresolved_alone(tmp_path):
    estate = tmp_path / "estate"
    alpha = estate / "alpha"
    make_repo(alpha, {"README.md": README})
    make_repo(estate / "beta", {"README.md": BETA})
    exclude = _ExclusionsThatChangeTheDisk(lambda: _unreadable_now(alpha))
    candidates = discover_local([estate], exclude)
    assert {c.name: (str(c.path), c.verdict.value, c.clause, c.detail) for c in candidates} == {
        "alpha": _cannot_tell(
            alpha,
            f"cannot be read (File name too long: {alpha / '.git'}): let the user phpbotscout "
            "runs as read it",
        ),
        "beta": (str(estate / "beta"), "admitted", "local", "listed in sources.local"),
    }


@pytest.mark.parametrize("file", [".git", ".git/HEAD"], ids=["git-directory", "head"])
def test_a_repository_this_user_may_not_read_is_unresolved_not_admitted(tmp_path, file):
    # git calls it no repository at all, so it was admitted, then failed as one.
    alpha = tmp_path / "estate" / "alpha"
    make_repo(alpha, {"README.md": README})
    denied = alpha / file
    with may_not_read(denied):
        [candidate] = discover_local([alpha.parent], ())
    assert (str(candidate.path), candidate.verdict.value, candidate.clause, candidate.detail) == (
        _cannot_tell(
            alpha,
            f"cannot be read (Permission denied: {denied}): let the user phpbotscout runs as "
            "read it",
        )
    )


def _replaced(ref: Path, by: Callable[[Path], object]) -> None:
    ref.unlink()
    by(ref)


_BRANCH, _HEAD = Path("refs") / "heads" / "main", Path("HEAD")
_DAMAGED_REFS: dict[str, tuple[str, Path, Callable[[Path], object]]] = {
    "ref-a-directory": ("Is a directory", _BRANCH, lambda ref: _replaced(ref, Path.mkdir)),
    "ref-a-dangling-link": (
        "a symbolic link to nothing",
        _BRANCH,
        lambda ref: _replaced(ref, lambda r: r.symlink_to(r.parent / "gone")),
    ),
    "ref-a-link-too-long": (
        "File name too long",
        _BRANCH,
        lambda ref: _replaced(ref, lambda r: r.symlink_to(r.parent / TOO_LONG)),
    ),
    "head-not-utf-8": ("not UTF-8 text", _HEAD, lambda h: h.write_bytes(b"ref: refs/heads/\xff")),
    "head-outside-refs": (
        "not a ref",
        _HEAD,
        lambda head: head.write_bytes(b"ref: refs/heads/../../config\n"),
    ),
    "head-not-a-sha": ("not a ref", _HEAD, lambda head: head.write_bytes(b"0" * 40 + b"-more\n")),
}


@pytest.mark.parametrize(("says", "file", "damage"), _DAMAGED_REFS.values(), ids=_DAMAGED_REFS)
async def test_a_repository_whose_refs_cannot_be_read_is_unresolved_not_empty(
    tmp_path, says, file, damage
):
    # Read as having no commit yet, it would be rejected as empty and its documents cleared.
    alpha = tmp_path / "estate" / "alpha"
    make_repo(alpha, {"README.md": README})
    damaged = alpha / ".git" / file
    assert await _alpha_after(tmp_path, alpha, lambda: damage(damaged)) == _cannot_tell(
        alpha,
        f"has refs git cannot read ({says}: {damaged}), so whether it has a commit is not "
        "known: run 'git status' in it to see what is wrong, and repair it",
    )


def test_a_branch_held_only_in_packed_refs_is_not_empty(tmp_path):
    alpha, fresh = tmp_path / "alpha", tmp_path / "fresh"
    make_repo(alpha, {"README.md": README})
    git(alpha, "pack-refs", "--all")
    make_repo(fresh, {"README.md": README})
    git(fresh, "pack-refs", "--all")
    git(fresh, "symbolic-ref", "HEAD", "refs/heads/next")  # a branch not made yet
    candidates = discover_local([alpha, fresh], ())
    assert not (alpha / ".git" / "refs" / "heads" / "main").exists()
    assert {c.name: (c.verdict.value, c.clause) for c in candidates} == {
        "alpha": ("admitted", "local"),
        "fresh": ("rejected", "empty"),
    }


def _linked_worktree(tmp_path: Path) -> tuple[Path, Path]:
    """A main repository outside the estate, and its linked worktree ``alpha`` inside it.

    The worktree is on a branch of its own, a commit ahead of the main repository's.
    """
    main = tmp_path / "main" / "alpha"
    make_repo(main, {"README.md": "# Main\n\nThe main branch says nothing of sprockets.\n"})
    alpha = tmp_path / "estate" / "alpha"
    alpha.parent.mkdir(parents=True)
    git(main, "worktree", "add", "-q", "-b", "feature", str(alpha))
    commit(alpha, {"README.md": README})
    return main, alpha


async def test_a_linked_worktree_is_indexed_at_its_own_branch_from_what_it_shares(tmp_path):
    # Its objects and its branch are in the main repository's git directory, named by the
    # commondir file of its own; its HEAD alone is in its own.
    main, alpha = _linked_worktree(tmp_path)
    git(main, "gc", "-q")  # every object packed, every ref in packed-refs
    assert (alpha / ".git").is_file()
    assert not (main / ".git" / "refs" / "heads" / "feature").exists()
    async with await Engine.open(_config(tmp_path, "estate")) as engine:
        report = await engine.refresh()
        top = (await engine.retrieve("what turns sprockets into gears?")).results[0]
    assert [(o.name, o.status) for o in report.outcomes] == [("alpha", "indexed")]
    head = git(alpha, "rev-parse", "HEAD")
    assert (top.repo, top.path, top.commit) == ("alpha", "README.md", head)


def test_a_linked_worktree_with_no_commit_on_its_branch_is_empty(tmp_path):
    _, alpha = _linked_worktree(tmp_path)
    git(alpha, "checkout", "-q", "--orphan", "fresh")  # the main repository has commits
    [candidate] = discover_local([alpha], ())
    assert (candidate.verdict.value, candidate.clause) == ("rejected", "empty")


def test_a_linked_worktree_whose_commondir_may_not_be_read_is_unresolved_not_empty(tmp_path):
    # Taken for absent, its branch would be looked for in its own git directory, and not found.
    main, alpha = _linked_worktree(tmp_path)
    denied = main / ".git" / "worktrees" / "alpha" / "commondir"
    with may_not_read(denied):
        [candidate] = discover_local([alpha], ())
    assert (str(candidate.path), candidate.verdict.value, candidate.clause, candidate.detail) == (
        _cannot_tell(
            alpha,
            f"cannot be read (Permission denied: {denied}): let the user phpbotscout runs as "
            "read it",
        )
    )


def _main_moved(main: Path, alpha: Path) -> str:
    main.rename(main.parent / "moved")
    return (
        f"is a linked worktree whose main repository is no longer at {main} (moved or deleted), "
        f"so git cannot open it: run 'git worktree repair {alpha}' in the main repository where "
        "it is now"
    )


def _entry_pruned(main: Path, alpha: Path) -> str:
    entry = main / ".git" / "worktrees" / "alpha"
    shutil.rmtree(entry)
    return (
        f"is a linked worktree that its main repository {main} no longer lists ({entry} is "
        "gone, as 'git worktree prune' leaves it), so git cannot open it: move it aside and add "
        "it again with 'git worktree add' in the main repository"
    )


@pytest.mark.parametrize("lose", [_main_moved, _entry_pruned], ids=["main-moved", "pruned"])
async def test_a_linked_worktree_its_main_repository_lost_says_how_to_mend_it(tmp_path, lose):
    # git calls it no repository at all: it was admitted, then failed saying only that.
    main, alpha = _linked_worktree(tmp_path)
    problem: list[str] = []
    stored = await _alpha_after(tmp_path, alpha, lambda: problem.append(lose(main, alpha)))
    assert stored == _cannot_tell(alpha, problem[0])
