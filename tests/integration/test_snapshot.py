"""A directory that is not a git repository is read from its regular files on disk."""

from pathlib import Path

import pytest

from bot.errors import SourceError
from bot.snapshot import DirectorySnapshot, GitSnapshot
from tests.gitrepo import git, make_repo


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
