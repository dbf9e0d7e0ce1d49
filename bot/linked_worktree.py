"""A linked worktree (``git worktree add``): where its git directories are, and a lost link.

A submodule's checkout has a ``.git`` file too, naming its history in the superproject's
``.git/modules``; a lost link of that kind is told apart here as well.

Its ``.git`` is a file naming its own git directory inside the main repository's
(``<main>/.git/worktrees/<id>``: its HEAD and index), whose ``commondir`` file names the
directory it shares with the main repository: the objects, the configuration, packed-refs and
the branches. What git needs of such a worktree is in both. Once the main repository moves or
forgets the worktree, the ``.git`` file names nothing, and git calls the worktree no
repository at all, which says neither what happened nor how to mend it.
"""

from __future__ import annotations

import shlex
from pathlib import Path


def named_git_dir(git_file: Path) -> Path | None:
    """The git directory a ``.git`` file names (``gitdir: PATH``), or None if it names none."""
    try:
        text = git_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith("gitdir:"):
        return None
    named = Path(text.removeprefix("gitdir:").strip())
    # Relative to the worktree, it is resolved as git resolves it, so that messages name it plainly.
    return named if named.is_absolute() else (git_file.parent / named).resolve()


def common_dir(git_dir: Path) -> Path:
    """The directory holding what ``git_dir`` shares with its main repository: itself if none.

    ``commondir`` names it relative to ``git_dir`` (``../..``), which is resolved so that a
    file of it is named the way the operator would look for it.

    Raises:
        PermissionError: ``commondir`` may not be read by this user. Taken for absent, as
            GitPython takes it, the worktree's branch would be looked for in the wrong place,
            and a worktree with commits called empty.
    """
    try:
        text = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except PermissionError:
        raise
    except (OSError, UnicodeDecodeError):  # a repository of its own, or one git cannot open
        return git_dir
    return (git_dir / text).resolve() if text else git_dir


def lost_link(repo_path: Path) -> str | None:
    """Why git cannot open ``repo_path``, when its ``.git`` file names a directory that is gone.

    That is a linked worktree its main repository lost, or a submodule's checkout without its
    superproject's copy of its history (``<superproject>/.git/modules/<name>``), or any other
    ``.git`` file whose directory moved. Nothing is said where that directory is there: git's
    own account stands.
    """
    git_file = repo_path / ".git"
    if not git_file.is_file():
        return None
    git_dir = named_git_dir(git_file)
    if git_dir is None or git_dir.exists():
        return None
    if git_dir.parent.name != "worktrees":
        return _lost_git_dir(repo_path, git_dir)
    main_git_dir = git_dir.parent.parent
    main = main_git_dir.parent if main_git_dir.name == ".git" else main_git_dir
    if main_git_dir.is_dir():
        # 'git worktree prune' removes the entry of a worktree it finds gone, as one moved is.
        return (
            f"is a linked worktree that its main repository {main} no longer lists ({git_dir} "
            "is gone, as 'git worktree prune' leaves it), so git cannot open it: move it aside "
            "and add it again with 'git worktree add' in the main repository"
        )
    return (
        f"is a linked worktree whose main repository is no longer at {main} (moved or "
        "deleted), so git cannot open it: run 'git worktree repair "
        f"{shlex.quote(str(repo_path))}' in the main repository where it is now"
    )


def _lost_git_dir(repo_path: Path, git_dir: Path) -> str:
    """Why a ``.git`` file that names no worktree leads nowhere, and what to do."""
    superproject = _superproject(git_dir)
    if superproject is None:
        return (
            f"has a .git file naming {git_dir} as its git directory, which is not there, so git "
            "cannot open it: correct the path in the .git file, or list a clone of the "
            "repository instead"
        )
    inside = _within(repo_path, superproject) if (superproject / ".git").is_dir() else None
    if inside is None:
        # Copied out, its relative link leads nowhere, and nothing in the superproject mends it.
        return (
            f"is a submodule's checkout outside its superproject: its .git file leads to "
            f"{git_dir}, which is not there, so git cannot open it: list the checkout where it "
            "lies inside its superproject, or a clone of the submodule's own repository"
        )
    path = shlex.quote(str(inside))
    return (
        f"is a submodule's checkout whose history, {git_dir}, is gone from its superproject "
        f"{superproject}, so git cannot open it: run 'git submodule deinit -f {path}' and then "
        f"'git submodule update --init {path}' in the superproject"
    )


def _superproject(git_dir: Path) -> Path | None:
    """The superproject whose ``.git/modules`` ``git_dir`` is a submodule's history in, if any.

    A submodule's name may hold slashes (``.git/modules/libs/net``), so the first ``modules``
    under a ``.git`` is the one.
    """
    parts = git_dir.parts
    for at in range(1, len(parts) - 1):
        if parts[at - 1] == ".git" and parts[at] == "modules":
            return Path(*parts[: at - 1])
    return None


def _within(path: Path, directory: Path) -> Path | None:
    """``path`` relative to ``directory``, or None where it lies elsewhere.

    Both are resolved: a ``.git`` file written by older git names its history by an absolute
    path, which may run through a symbolic link to where the superproject really is.
    """
    try:
        return path.resolve().relative_to(directory.resolve())
    except ValueError:
        return None
