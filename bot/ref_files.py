"""Whether a repository's HEAD names a branch with no commit yet, read from its ref files.

A repository so found has nothing to index and is rejected as empty, its documents cleared,
so only positive evidence will do: HEAD names a branch, and neither a ref file nor a line of
``packed-refs`` holds that branch, every file that could have told being readable. A ref that
cannot be read or is not a ref is damage, not emptiness, and is raised as such.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from bot.errors import DamagedRepository

_FULL_SHA = re.compile(rb"[0-9a-f]{40}|[0-9a-f]{64}")
# A name under refs/ whose parts neither start with a dot nor hold what git forbids in a ref
# name, so that it names a file inside the repository and nowhere else.
_PART = r"[^/\x00-\x20\x7f~^:?*\[\\.][^/\x00-\x20\x7f~^:?*\[\\]*"
_REF_NAME = re.compile(rf"refs/(?:{_PART}/)*{_PART}")
# How many symbolic refs git follows before it gives up on a loop.
_MAX_DEPTH = 5


def branch_is_unborn(repo_path: Path, git_dir: Path, common_dir: Path) -> bool:
    """Whether HEAD (in ``git_dir``) names a branch that no ref (in ``common_dir``) holds.

    Raises:
        DamagedRepository: a file needed to tell is damaged: what, and what to do.
        PermissionError: one may not be read by this user.
    """
    head = _read(repo_path, git_dir / "HEAD")
    if head is None:
        raise _damaged(repo_path, f"no HEAD: {git_dir / 'HEAD'}")
    target = _target(repo_path, git_dir / "HEAD", head)
    for _ in range(_MAX_DEPTH):
        if target is None:  # a commit's SHA
            return False
        ref_file = common_dir / target
        content = _read(repo_path, ref_file)
        if content is None:
            return not _packed(repo_path, common_dir / "packed-refs", target)
        target = _target(repo_path, ref_file, content)
    raise _damaged(repo_path, f"symbolic refs that lead on and on: {git_dir / 'HEAD'}")


def _read(repo_path: Path, file: Path) -> bytes | None:
    """The bytes of ``file``, or None where it does not exist at all."""
    try:
        return file.read_bytes()
    except FileNotFoundError:
        if not os.path.lexists(file):
            return None
        raise _damaged(repo_path, f"a symbolic link to nothing: {file}") from None
    except PermissionError:
        raise
    except OSError as exc:  # a directory, a loop of links, a link to a name too long
        raise _damaged(repo_path, f"{exc.strerror or exc}: {file}") from None


def _target(repo_path: Path, file: Path, content: bytes) -> str | None:
    """The ref a ref file names, or None where it holds a commit's SHA instead."""
    text = content.strip()
    if _FULL_SHA.fullmatch(text):
        return None
    if text.startswith(b"ref:"):
        try:
            name = text.removeprefix(b"ref:").strip().decode("utf-8")
        except UnicodeDecodeError:
            raise _damaged(repo_path, f"not UTF-8 text: {file}") from None
        if _REF_NAME.fullmatch(name) and ".." not in name and not name.endswith(".lock"):
            return name
    raise _damaged(repo_path, f"not a ref: {file}")


def _packed(repo_path: Path, packed_refs: Path, name: str) -> bool:
    """Whether ``packed-refs`` holds ``name``."""
    content = _read(repo_path, packed_refs)
    for line in (content or b"").splitlines():
        if line.startswith((b"#", b"^")) or not line.strip():  # the header, a peeled tag
            continue
        sha, _, ref = line.partition(b" ")
        if not _FULL_SHA.fullmatch(sha) or not ref:
            raise _damaged(repo_path, f"not a packed-refs file: {packed_refs}")
        if ref == name.encode():
            return True
    return False


def _damaged(repo_path: Path, what: str) -> DamagedRepository:
    found = f"{repo_path} has refs git cannot read ({what})"
    return DamagedRepository(
        f"{found}, so whether it has a commit is not known: run 'git status' in it to see what "
        "is wrong, and repair it",
        found=found,
    )
