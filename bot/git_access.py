"""The file of a repository this user may not read, found before git's account of it is taken.

git reports such a file as some other fault: a ``.git``, ``HEAD`` or ``objects`` it may not
read makes the repository "not a git repository", a loose object it may not open is
"corrupt", and the objects of a pack it may not open are missing. Each sends the operator
after damage that is not there, when letting the user phpbotscout runs as read the file is
the repair. So where git fails, the files it needed are checked first, as this user.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from bot.linked_worktree import common_dir, named_git_dir


def denied_in_repository(repo_path: Path) -> PermissionError | None:
    """The first file of the git directory at ``repo_path`` this user may not read, if any."""
    git_dir = repo_path / ".git" if os.path.lexists(repo_path / ".git") else repo_path
    if git_dir.is_file():  # a linked worktree's: it names the git directory, kept elsewhere
        if (denied := _first_denied([git_dir])) is not None:
            return denied
        git_dir = named_git_dir(git_dir) or git_dir
    if (denied := _first_denied([git_dir, git_dir / "HEAD", git_dir / "commondir"])) is not None:
        return denied
    # A linked worktree's configuration, refs and objects are its main repository's.
    shared = common_dir(git_dir)
    names = ("config", "refs", "packed-refs", "objects")
    return _first_denied([shared, *(shared / name for name in names)])


def denied_in_object_store(objects: Path, sha: str) -> PermissionError | None:
    """The first file that could hold object ``sha`` under ``objects`` this user may not read."""
    packs = objects / "pack"
    denied = _first_denied([objects, objects / sha[:2], objects / sha[:2] / sha[2:], packs])
    if denied is not None:
        return denied
    try:
        held = sorted(packs.iterdir())
    except OSError:  # no packs at all
        return None
    return _first_denied(p for p in held if p.suffix in (".pack", ".idx"))


# The repair of every path the user phpbotscout runs as may not read, in the same words.
LET_READ = "let the user phpbotscout runs as read it"


def unreadable(reason: str, repair: str = LET_READ) -> str:
    """What is said of a path this user may not read, after its name: what failed, what to do.

    ``reason`` is what the system said, naming the file where it is not the path itself.
    """
    return f"cannot be read ({reason}): {repair}"


def cannot_be_read(repo_path: Path, denied: PermissionError) -> str:
    """What to tell the operator of a repository with a file this user may not read."""
    return f"{repo_path} {unreadable(f'{denied.strerror}: {denied.filename}')}"


def _first_denied(paths: Iterable[Path]) -> PermissionError | None:
    """The first of ``paths`` that is there but may not be read (a directory: entered)."""
    for path in paths:
        try:
            mode = path.stat().st_mode
        except PermissionError as exc:  # a directory on the way may not be entered
            return exc
        except OSError:  # not there: git's own account of it stands
            continue
        wanted = os.R_OK | os.X_OK if stat.S_ISDIR(mode) else os.R_OK
        if not os.access(path, wanted):
            return PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
    return None
