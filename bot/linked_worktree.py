"""A linked worktree (``git worktree add``): where its git directories are, and a lost link.

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
    """Why git cannot open the linked worktree at ``repo_path``, when its main repository lost it.

    Nothing is said of a worktree whose git directory is there, nor of a ``.git`` file naming
    anything other than a worktree's entry in a main repository: git's own account stands.
    """
    git_file = repo_path / ".git"
    if not git_file.is_file():
        return None
    git_dir = named_git_dir(git_file)
    if git_dir is None or git_dir.exists() or git_dir.parent.name != "worktrees":
        return None
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
