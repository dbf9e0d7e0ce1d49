"""Whether HEAD names a branch with no commit yet, told from ref files written by hand."""

from pathlib import Path

import pytest

from bot.errors import SourceError
from bot.ref_files import branch_is_unborn

SHA = "a" * 40


def _repo(root: Path, head: str, refs: dict[str, str], packed: str | None = None) -> Path:
    """A ``.git`` directory holding ``HEAD``, the loose ``refs`` and, if given, ``packed-refs``."""
    git_dir = root / ".git"
    for name, content in refs.items():
        (git_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (git_dir / name).write_text(content)
    git_dir.mkdir(exist_ok=True)
    (git_dir / "HEAD").write_text(head)
    if packed is not None:
        (git_dir / "packed-refs").write_text(packed)
    return git_dir


def _unborn(root: Path, git_dir: Path) -> bool:
    return branch_is_unborn(root, git_dir, git_dir)


@pytest.mark.parametrize(
    ("refs", "packed", "unborn"),
    [
        ({}, None, True),
        ({"refs/heads/main": f"{SHA}\n"}, None, False),
        # Another symbolic ref on the way, as git follows it.
        ({"refs/heads/main": "ref: refs/heads/next\n", "refs/heads/next": f"{SHA}\n"}, None, False),
        ({}, f"# pack-refs with: peeled fully-peeled sorted\n{SHA} refs/heads/main\n", False),
        # A peeled tag's line and another branch say nothing of this one.
        ({}, f"{SHA} refs/tags/v1\n^{'b' * 40}\n{SHA} refs/heads/other\n", True),
    ],
    ids=["no-ref", "loose", "through-a-symbolic-ref", "packed", "packed-others-only"],
)
def test_a_branch_is_unborn_only_when_no_ref_holds_it(
    tmp_path: Path, refs: dict[str, str], packed: str | None, unborn: bool
):
    git_dir = _repo(tmp_path, "ref: refs/heads/main\n", refs, packed)
    assert _unborn(tmp_path, git_dir) is unborn


def test_a_detached_head_is_not_unborn(tmp_path: Path):
    assert _unborn(tmp_path, _repo(tmp_path, f"{SHA}\n", {})) is False


def test_a_packed_refs_file_that_is_not_one_is_damage_not_emptiness(tmp_path: Path):
    git_dir = _repo(tmp_path, "ref: refs/heads/main\n", {}, "not a packed-refs file\n")
    with pytest.raises(SourceError) as raised:
        _unborn(tmp_path, git_dir)
    assert str(raised.value) == (
        f"{tmp_path} has refs git cannot read (not a packed-refs file: {git_dir / 'packed-refs'}), "
        "so whether it has a commit is not known: run 'git status' in it to see what is wrong, "
        "and repair it"
    )


def test_symbolic_refs_in_a_loop_are_damage_not_emptiness(tmp_path: Path):
    loop = {
        "refs/heads/main": "ref: refs/heads/next\n",
        "refs/heads/next": "ref: refs/heads/main\n",
    }
    git_dir = _repo(tmp_path, "ref: refs/heads/main\n", loop)
    with pytest.raises(SourceError, match="symbolic refs that lead on and on"):
        _unborn(tmp_path, git_dir)


def test_a_repository_without_head_is_damage_not_emptiness(tmp_path: Path):
    git_dir = _repo(tmp_path, "ref: refs/heads/main\n", {})
    (git_dir / "HEAD").unlink()
    with pytest.raises(SourceError, match=r"\(no HEAD: "):
        _unborn(tmp_path, git_dir)
