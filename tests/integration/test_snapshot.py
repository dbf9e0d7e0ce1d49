"""A commit's files, read from git or from a directory, and what is said when they cannot be."""

import os
import shlex
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.errors import SourceError
from bot.snapshot import DirectorySnapshot, GitSnapshot
from tests.denied import may_not_read
from tests.gitrepo import corrupt_loose_object, corrupt_packed_object, git, loose_object, make_repo


def test_a_directory_is_read_by_its_regular_files_only(tmp_path: Path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text("# Page\n")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.md"
    outside.write_text("# Not part of the tree\n")
    (tmp_path / "docs" / "elsewhere.md").symlink_to(outside)  # could point anywhere at all
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "notes.md").write_text("# Installed packages\n")
    snapshot = DirectorySnapshot(tmp_path)
    assert [f.path for f in snapshot.files()] == ["docs/page.md"]
    assert snapshot.read(snapshot.files()[0]) == b"# Page\n"
    assert snapshot.commit.startswith("worktree-")
    assert DirectorySnapshot(tmp_path).commit == snapshot.commit  # unchanged files, same id
    (tmp_path / "docs" / "page.md").write_text("# Page, edited\n")
    assert DirectorySnapshot(tmp_path).commit != snapshot.commit


def test_a_directory_that_is_not_there_is_an_error_not_an_empty_tree(tmp_path: Path):
    # Read as empty, it would be indexed as a source with no documents, its last index lost.
    (tmp_path / "file").write_text("# Not a directory\n")
    for root in (tmp_path / "gone", tmp_path / "file"):
        with pytest.raises(SourceError, match=f"^{root} is not a directory"):
            DirectorySnapshot(root)


def test_a_repository_git_cannot_open_is_an_error_saying_what_to_do(tmp_path: Path):
    # Not a crash of the whole build: a source error, which fails that source alone.
    make_repo(tmp_path / "work", {"README.md": "# Alpha\n"})
    repo = tmp_path / "alpha.git"
    git(tmp_path, "clone", "-q", "--bare", str(tmp_path / "work"), str(repo))
    (repo / "config").write_text("not a git configuration\n", encoding="utf-8")
    said = (
        f"^{repo} cannot be read by git \\(File contains no section headers\\): run 'git status' "
        "in it to see what is wrong, and repair it$"
    )
    with pytest.raises(SourceError, match=said):
        GitSnapshot(repo)


def test_a_working_tree_whose_configuration_git_cannot_parse_is_not_called_damaged(tmp_path):
    # GitPython opens such a tree; git then fails to start, which is no missing commit.
    repo = tmp_path / "alpha"
    make_repo(repo, {"README.md": "# Alpha\n"})
    (repo / ".git" / "config").write_text("not a git configuration\n", encoding="utf-8")
    said = (
        f"{repo} cannot be read by git (bad config line 1 in file .git/config): run 'git status' "
        "in it to see what is wrong, and repair it"
    )
    with pytest.raises(SourceError) as raised:
        GitSnapshot(repo)
    assert str(raised.value) == said


MISSING = (
    "is missing from its object store. Run 'git fsck' in it to see what else is lost, then "
    "'git fetch --refetch' (git 2.36 or later) to get every object again from its remote, or "
    "restore it from a backup, or clone it again"
)
CORRUPT = (
    "A fetch stops at it, so cannot repair it: run 'git fsck' in it to see what else is "
    "corrupt, then clone it again or restore it from a backup"
)


def _read_all(repo: Path) -> str:
    """What reading every file of ``repo``'s HEAD fails with."""
    with pytest.raises(SourceError) as raised:
        snapshot = GitSnapshot(repo)
        try:
            for entry in snapshot.files():
                snapshot.read(entry)
        finally:
            snapshot.close()
    return str(raised.value)


def _stored_at(sha: str) -> str:
    return f"loose object {sha} (stored in .git/objects/{sha[:2]}/{sha[2:]}) is corrupt"


def test_a_commit_cut_short_on_disk_is_corrupt_not_missing(tmp_path):
    # git finds its file, whose header no longer inflates: once called missing.
    head = make_repo(tmp_path, {"README.md": "# Alpha\n"})
    object_file = loose_object(tmp_path, head)
    object_file.chmod(0o644)  # git writes objects read-only
    object_file.write_bytes(object_file.read_bytes()[:10])
    assert _read_all(tmp_path) == (
        f"{tmp_path} is damaged: commit {head[:12]} (HEAD) is in its object store but corrupt "
        f"({_stored_at(head)}). {CORRUPT}"
    )


def test_a_packed_commit_that_fails_its_checksum_is_corrupt_naming_its_pack(tmp_path):
    head = make_repo(tmp_path, {"README.md": "# Alpha\n"})
    pack = corrupt_packed_object(tmp_path, head)
    assert _read_all(tmp_path) == (
        f"{tmp_path} is damaged: commit {head[:12]} (HEAD) is in its object store but corrupt "
        f"(packed object {head} (stored in {pack.relative_to(tmp_path)}) is corrupt). {CORRUPT}"
    )


@pytest.mark.parametrize("damage", ["missing", "corrupt"])
@pytest.mark.parametrize("named", ["HEAD:docs", "HEAD:docs/guide.md"], ids=["tree", "file"])
def test_a_tree_or_file_the_commit_holds_is_told_missing_or_corrupt(tmp_path, named, damage):
    head = make_repo(tmp_path, {"README.md": "# Alpha\n", "docs/guide.md": "# Guide\n"})
    sha = git(tmp_path, "rev-parse", named)
    if damage == "missing":
        loose_object(tmp_path, sha).unlink()
    else:
        corrupt_loose_object(tmp_path, sha)
    at = f"commit {head[:12]} (HEAD)"
    what = (
        f"tree {sha[:12]} of {at}"
        if named == "HEAD:docs"
        else f"docs/guide.md (blob {sha[:12]}) at {at}"
    )
    assert _read_all(tmp_path) == (
        f"{tmp_path} is damaged: {what} {MISSING}"
        if damage == "missing"
        else f"{tmp_path} is damaged: {what} is in its object store but corrupt "
        f"({_stored_at(sha)}). {CORRUPT}"
    )


def test_a_file_whose_content_is_cut_short_fails_instead_of_being_read_empty(tmp_path):
    # Its header still inflates, so git lists it with its size, then dies streaming it: it was
    # read as empty, and the next file then failed in its place, with a misleading error.
    notes = "# Notes\n\n" + "Sprockets turn into gears. " * 40
    head = make_repo(tmp_path, {"a.md": notes, "b.md": "# B\n"})
    blob = git(tmp_path, "rev-parse", "HEAD:a.md")
    object_file = loose_object(tmp_path, blob)
    object_file.chmod(0o644)
    object_file.write_bytes(object_file.read_bytes()[:-20])
    assert _read_all(tmp_path) == (
        f"{tmp_path} is damaged: a.md (blob {blob[:12]}) at commit {head[:12]} (HEAD) is in its "
        f"object store but corrupt (unable to stream {blob} to stdout). {CORRUPT}"
    )


def test_a_branch_ref_git_cannot_read_is_not_called_a_branch_with_no_commit_yet(tmp_path):
    # Told to commit something first, the operator would look for a fault that is not there.
    make_repo(tmp_path, {"README.md": "# Alpha\n"})
    ref = tmp_path / ".git" / "refs" / "heads" / "main"
    ref.unlink()
    ref.mkdir()
    with pytest.raises(SourceError) as raised:
        GitSnapshot(tmp_path)
    assert str(raised.value) == (
        f"{tmp_path} has refs git cannot read (Is a directory: {ref}), so whether it has a "
        "commit is not known: run 'git status' in it to see what is wrong, and repair it"
    )


def test_a_branch_with_no_commit_yet_is_said_to_have_none(tmp_path):
    git(tmp_path, "init", "-q", "-b", "main")
    with pytest.raises(SourceError) as raised:
        GitSnapshot(tmp_path)
    assert str(raised.value) == f"{tmp_path} has no commit at HEAD; commit something first"


def _packed(repo: Path, head: str) -> Path:
    git(repo, "repack", "-q", "-a", "-d")
    [pack] = (repo / ".git" / "objects" / "pack").glob("*.pack")
    return pack


_DENIED: dict[str, Callable[[Path, str], Path]] = {
    "git-directory": lambda repo, head: repo / ".git",
    "head": lambda repo, head: repo / ".git" / "HEAD",
    "configuration": lambda repo, head: repo / ".git" / "config",
    "branch-ref": lambda repo, head: repo / ".git" / "refs" / "heads" / "main",
    "object-store": lambda repo, head: repo / ".git" / "objects",
    "commit-object": loose_object,
    "file-object": lambda repo, head: loose_object(repo, git(repo, "rev-parse", "HEAD:README.md")),
    "pack": _packed,
}


@pytest.mark.parametrize("denied", _DENIED.values(), ids=_DENIED)
def test_a_file_this_user_may_not_read_is_said_so_not_called_damage(tmp_path, denied):
    # git calls each of these something else: no repository, a corrupt object, a missing one.
    head = make_repo(tmp_path, {"README.md": "# Alpha\n"})
    file = denied(tmp_path, head)
    with may_not_read(file):
        said = _read_all(tmp_path)
    assert said == (
        f"{tmp_path} cannot be read (Permission denied: {file}): let the user phpbotscout runs "
        "as read it"
    )


def test_a_linked_worktree_whose_git_directory_may_not_be_read_is_said_so(tmp_path):
    # Its .git is a file naming a directory inside the main repository's: git sees none.
    make_repo(tmp_path / "main", {"README.md": "# Alpha\n"})
    linked = tmp_path / "linked"
    git(tmp_path / "main", "worktree", "add", "-q", str(linked))
    git_dir = tmp_path / "main" / ".git" / "worktrees" / "linked"
    with may_not_read(git_dir):
        said = _read_all(linked)
    assert said == (
        f"{linked} cannot be read (Permission denied: {git_dir}): let the user phpbotscout runs "
        "as read it"
    )


@pytest.mark.parametrize("name", ["alpha", "my alpha"], ids=["plain", "with-a-space"])
def test_a_repository_another_user_owns_says_how_git_is_told_to_trust_it(
    tmp_path, monkeypatch, name
):
    # Nothing in it needs repair, and 'git status' run by its owner finds nothing wrong. The
    # command ends the message, so that it is copied whole, its path quoted for the shell.
    if os.geteuid() != 0:
        pytest.skip("only root may give a repository to another user")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)  # no safe.directory of this machine's
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    repo = tmp_path / name
    make_repo(repo, {"README.md": "# Alpha\n"})
    for path in (repo, *repo.rglob("*")):
        os.chown(path, 65534, 65534, follow_symlinks=False)
    assert _read_all(repo) == (
        f"{repo} cannot be read by git (detected dubious ownership in repository at "
        f"'{repo}'): it belongs to another user than the one phpbotscout runs as. Give the "
        "repository to that user, or trust it by running, as that user: git config --global "
        f"--add safe.directory {shlex.quote(str(repo))}"
    )


@pytest.mark.parametrize("denied", ["docs", "docs/page.md"], ids=["directory", "file"])
def test_a_directory_part_of_which_may_not_be_read_is_said_so_not_read_without_it(tmp_path, denied):
    # Passed over, a directory's files would leave the index as if they had been deleted.
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text("# Page\n")
    (tmp_path / "README.md").write_text("# Alpha\n")
    part = tmp_path / denied
    with may_not_read(part), pytest.raises(SourceError) as raised:
        snapshot = DirectorySnapshot(tmp_path)
        for entry in snapshot.files():
            snapshot.read(entry)
    assert str(raised.value) == (
        f"{tmp_path} cannot be read (Permission denied: {part}): let the user phpbotscout runs "
        "as read it"
    )


def test_a_linked_worktree_whose_main_repository_moved_says_how_to_mend_it(tmp_path):
    # Its .git file names a git directory that went with the main repository.
    make_repo(tmp_path / "main", {"README.md": "# Alpha\n"})
    linked = tmp_path / "linked"
    git(tmp_path / "main", "worktree", "add", "-q", str(linked))
    (tmp_path / "main").rename(tmp_path / "moved")
    assert _read_all(linked) == (
        f"{linked} is a linked worktree whose main repository is no longer at {tmp_path / 'main'} "
        f"(moved or deleted), so git cannot open it: run 'git worktree repair {linked}' in the "
        "main repository where it is now"
    )


def test_a_linked_worktree_naming_its_git_directory_relatively_names_the_main_repository(
    tmp_path,
):
    # A .git file may name it relative to the worktree (git 2.48's worktree.useRelativePaths).
    make_repo(tmp_path / "main", {"README.md": "# Alpha\n"})
    linked = tmp_path / "linked"
    git(tmp_path / "main", "worktree", "add", "-q", str(linked))
    (linked / ".git").write_text("gitdir: ../main/.git/worktrees/linked\n")
    assert git(linked, "rev-parse", "--is-inside-work-tree") == "true"
    (tmp_path / "main").rename(tmp_path / "moved")
    assert _read_all(linked) == (
        f"{linked} is a linked worktree whose main repository is no longer at {tmp_path / 'main'} "
        f"(moved or deleted), so git cannot open it: run 'git worktree repair {linked}' in the "
        "main repository where it is now"
    )


def _superproject_with_submodule(tmp_path: Path) -> Path:
    make_repo(tmp_path / "lib", {"README.md": "# Lib\n"})
    make_repo(tmp_path / "app", {"README.md": "# App\n"})
    git(tmp_path / "app", "-c", "protocol.file.allow=always", "submodule", "add", "-q", "../lib")
    return tmp_path / "app"


def test_a_submodule_checkout_copied_out_of_its_superproject_says_how_to_mend_it(tmp_path):
    # Its .git file names its history relative to itself: ../.git/modules/lib.
    app = _superproject_with_submodule(tmp_path)
    copied = tmp_path / "copied"
    shutil.copytree(app / "lib", copied)
    assert _read_all(copied) == (
        f"{copied} is a submodule's checkout outside its superproject: its .git file leads to "
        f"{tmp_path / '.git' / 'modules' / 'lib'}, which is not there, so git cannot open it: "
        "list the checkout where it lies inside its superproject, or a clone of the submodule's "
        "own repository"
    )


def test_a_submodule_checkout_whose_history_is_gone_says_how_to_mend_it_and_that_mends_it(
    tmp_path,
):
    app = _superproject_with_submodule(tmp_path)
    shutil.rmtree(app / ".git" / "modules" / "lib")
    history = app / ".git" / "modules" / "lib"
    assert _read_all(app / "lib") == (
        f"{app / 'lib'} is a submodule's checkout whose history, {history}, "
        f"is gone from its superproject {app}, so git cannot open it: run 'git submodule deinit "
        "-f lib' and then 'git submodule update --init lib' in the superproject"
    )
    git(app, "submodule", "deinit", "-f", "lib")
    git(app, "-c", "protocol.file.allow=always", "submodule", "update", "--init", "lib")
    snapshot = GitSnapshot(app / "lib")
    try:
        assert [e.path for e in snapshot.files()] == ["README.md"]
    finally:
        snapshot.close()


def test_a_submodule_whose_git_file_reaches_its_superproject_through_a_link_is_inside_it(
    tmp_path,
):
    # Older git wrote the history's absolute path, which may run through a symbolic link.
    app = _superproject_with_submodule(tmp_path / "real")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    history = tmp_path / "link" / "app" / ".git" / "modules" / "lib"
    (app / "lib" / ".git").write_text(f"gitdir: {history}\n")
    shutil.rmtree(history)
    said = _read_all(app / "lib")
    assert said is not None
    assert "run 'git submodule deinit -f lib' and then 'git submodule update --init lib'" in said


def test_a_git_file_naming_a_directory_that_is_gone_says_so(tmp_path):
    make_repo(tmp_path / "repo", {"README.md": "# Alpha\n"})
    (tmp_path / "repo" / ".git").rename(tmp_path / "history")
    (tmp_path / "repo" / ".git").write_text(f"gitdir: {tmp_path / 'history'}\n")
    assert git(tmp_path / "repo", "rev-parse", "--is-inside-work-tree") == "true"
    (tmp_path / "history").rename(tmp_path / "moved")
    assert _read_all(tmp_path / "repo") == (
        f"{tmp_path / 'repo'} has a .git file naming {tmp_path / 'history'} as its git "
        "directory, which is not there, so git cannot open it: correct the path in the .git "
        "file, or list a clone of the repository instead"
    )


@pytest.mark.parametrize(
    ("shared", "named"),
    [("config", "config"), ("objects", "objects"), ("refs", "refs/heads/feature")],
    ids=["config", "objects", "refs"],
)
def test_a_linked_worktree_whose_shared_files_may_not_be_read_is_said_so(tmp_path, shared, named):
    # Its configuration, objects and branches are its main repository's, named by commondir.
    make_repo(tmp_path / "main", {"README.md": "# Alpha\n"})
    linked = tmp_path / "linked"
    git(tmp_path / "main", "worktree", "add", "-q", "-b", "feature", str(linked))
    git_dir = tmp_path / "main" / ".git"
    with may_not_read(git_dir / shared):
        said = _read_all(linked)
    assert said == (
        f"{linked} cannot be read (Permission denied: {git_dir / named}): let the user "
        "phpbotscout runs as read it"
    )
