"""The files of one commit, read without touching the working tree.

Documents are pinned to the commit they were read from, so they are read from the commit
itself: uncommitted edits in a checkout never reach the index under a SHA that does not hold
them. ``DirectorySnapshot`` exists for the one case with no git history at all: the embedded
default corpus running from an unpacked copy rather than a clone.
"""

from __future__ import annotations

import configparser
import hashlib
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import git

from bot.errors import DamagedRepository, SourceError
from bot.git_access import cannot_be_read, denied_in_object_store, denied_in_repository
from bot.linked_worktree import common_dir, lost_link
from bot.object_faults import (
    GitFailed,
    damage_found,
    damaged,
    git_words,
    object_fault,
    run_git,
    sha_named,
)
from bot.ref_files import branch_is_unborn

_REGULAR_FILE_MODES = ("100644", "100755")
_FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_DUBIOUS_OWNERSHIP = re.compile(r"detected dubious ownership in repository at '(.+)'")


@dataclass(frozen=True, slots=True)
class FileEntry:
    """One file of a snapshot: its path, size and the identity of its content."""

    path: str
    size: int
    blob: str


class Snapshot(Protocol):
    """The files of one commit (or one directory) and their contents."""

    commit: str

    def files(self) -> list[FileEntry]:
        """Every regular file, symlinks and submodules excluded."""
        ...

    def read(self, entry: FileEntry) -> bytes:
        """The content of one file."""
        ...

    def close(self) -> None:
        """Release what reading needed (git helper processes)."""
        ...


def head_branch_is_unborn(repo_path: Path) -> bool:
    """Whether the repository's HEAD names a branch with no commit yet (``git init``, no more).

    Only refs are read, never objects: a HEAD whose commit is missing from the object
    store is a damaged repository, not an empty one. A path git cannot open is not called
    empty either; reading it says what is wrong.

    Raises:
        SourceError: it is a repository, but one git cannot read, or whose refs are damaged.
        PermissionError: a file of it (its git directory, HEAD, a ref) may not be read by
            this user.
    """
    repo = _open(repo_path)
    if repo is None:
        return False
    try:
        git_dir = Path(repo.git_dir)
    finally:
        repo.close()
    return branch_is_unborn(repo_path, git_dir, common_dir(git_dir))


def _open(repo_path: Path) -> git.Repo | None:
    """The repository at ``repo_path``, or ``None`` where there is none.

    Raises:
        SourceError: there is one, but git cannot read it (its configuration is not a git
            configuration, say, or it is a linked worktree its main repository lost): what
            is wrong, and what to do.
        PermissionError: there is one, but a file of it may not be read by this user.
    """
    try:
        return git.Repo(repo_path)
    except (git.exc.InvalidGitRepositoryError, git.exc.NoSuchPathError):
        # Its own files may be there, only not for this user to read: no repository to git.
        there = os.path.lexists(repo_path / ".git") or os.path.lexists(repo_path / "HEAD")
        if there and (denied := denied_in_repository(repo_path)) is not None:
            raise denied from None
        if (lost := lost_link(repo_path)) is not None:
            raise SourceError(f"{repo_path} {lost}") from None
        return None
    except PermissionError:  # the repair is to let this user read it, not to repair it
        raise
    except (OSError, configparser.Error) as exc:
        # A configuration error's text runs over lines, the file's content among them: its
        # first line says what is wrong, and git itself names the file.
        said = (exc.strerror or str(exc)) if isinstance(exc, OSError) else str(exc)
        raise _unreadable_by_git(repo_path, said) from None


def _unreadable_by_git(repo_path: Path, said: str) -> SourceError:
    first = said.partition("\n")[0].rstrip(".")
    if (dubious := _DUBIOUS_OWNERSHIP.search(first)) is not None:
        # Nothing in it is wrong, and 'git status' run by its owner shows nothing: git refuses
        # a repository another user owns until the user running git is told to trust it. The
        # command ends the message, to be copied whole, its path (as git names it) quoted.
        return SourceError(
            f"{repo_path} cannot be read by git ({first}): it belongs to another user than the "
            "one phpbotscout runs as. Give the repository to that user, or trust it by running, "
            "as that user: git config --global --add safe.directory "
            f"{shlex.quote(dubious[1])}"
        )
    found = f"{repo_path} cannot be read by git ({first})"
    return DamagedRepository(
        f"{found}: run 'git status' in it to see what is wrong, and repair it", found=found
    )


def _ref_sha(repo: git.Repo, ref: str) -> str | None:
    """The SHA ``ref`` leads to through the refs alone, or None when it leads nowhere yet."""
    if _FULL_SHA.fullmatch(ref):
        return ref
    try:
        return str(git.SymbolicReference.dereference_recursive(repo, ref))
    except ValueError:  # a branch with no commit has no ref file and no packed-refs line
        return None


def _commit_named(sha: str, ref: str) -> str:
    """The commit as the operator knows it: by its SHA, and the ref that led to it."""
    return f"commit {sha[:12]}" if sha == ref else f"commit {sha[:12]} ({ref})"


class GitSnapshot:
    """The tree of one commit of a local git repository."""

    def __init__(self, repo_path: Path, ref: str = "HEAD", *, clone_of: str | None = None) -> None:
        """Open ``ref`` of ``repo_path``.

        ``clone_of`` names the forge source whose clone phpbotscout keeps at ``repo_path``: its
        damage is repaired by removing it, not as a repository of the operator's own is.
        """
        try:
            repo = _open(repo_path)
        except PermissionError as denied:
            raise SourceError(cannot_be_read(repo_path, denied)) from None
        if repo is None:
            raise SourceError(f"{repo_path} is not a git repository")
        self._repo = repo
        self._path = repo_path
        self._clone_of = clone_of
        try:
            self.commit = self._repo.commit(ref).hexsha
        except (ValueError, OSError, git.exc.BadName, git.exc.GitCommandError) as exc:
            sha = _ref_sha(self._repo, ref)
            try:
                if sha is None:
                    raise self._no_commit(ref) from None
                raise self._fault(sha, "commit", _commit_named(sha, ref), exc) from None
            finally:
                self._repo.close()
        self._named = _commit_named(self.commit, ref)

    def files(self) -> list[FileEntry]:
        """List the commit's tree with one ``git ls-tree`` call."""
        status, out, said = run_git(
            self._repo, "ls-tree", "-r", "-l", "-z", "--full-tree", self.commit
        )
        if status != 0:
            failure = git_words(said) or f"exit status {status}"
            sha = sha_named(said) or self.commit  # git names the object it could not read
            if sha == self.commit:
                raise self._fault(sha, "commit", self._named, failure)
            raise self._fault(sha, "tree", f"tree {sha[:12]} of {self._named}", failure)
        entries = []
        for record in os.fsdecode(out).split("\0"):
            if not record:
                continue
            meta, _, path = record.partition("\t")
            mode, kind, blob, size = meta.split()
            if kind == "blob" and mode in _REGULAR_FILE_MODES:
                if not size.isdigit():  # git prints "BAD" for a blob it cannot read
                    raise self._fault(blob, "blob", self._file_named(path, blob), "listed as BAD")
                entries.append(FileEntry(path, int(size), blob))
        return entries

    def read(self, entry: FileEntry) -> bytes:
        """Read one blob through git's object database."""
        try:
            stream = self._repo.odb.stream(bytes.fromhex(entry.blob))
            content, size = bytes(stream.read()), stream.size
            # Let go of it while its git process runs: dropped later, as the snapshot closes,
            # it would try to drain what git never sent from a pipe closed by then.
            del stream
        except (ValueError, git.exc.GitError, OSError) as exc:
            raise self._fault(
                entry.blob, "blob", self._file_named(entry.path, entry.blob), exc
            ) from None
        if len(content) != size:  # git found the blob, then died part-way through it
            short = f"{len(content)} of its {size} bytes read"
            raise self._fault(entry.blob, "blob", self._file_named(entry.path, entry.blob), short)
        return content

    def _no_commit(self, ref: str) -> SourceError:
        """Say why ``ref`` leads to no commit: none made yet, or refs that cannot be read.

        As discovery does, HEAD is called unborn only on evidence: a ref file this user may not
        read, or one that is damaged, is said to be so.
        """
        if ref == "HEAD":
            git_dir = Path(self._repo.git_dir)
            try:
                branch_is_unborn(self._path, git_dir, common_dir(git_dir))
            except PermissionError as denied:
                return SourceError(cannot_be_read(self._path, denied))
            except SourceError as damaged_refs:
                return damaged_refs
        return SourceError(f"{self._path} has no commit at {ref}; commit something first")

    def _file_named(self, path: str, blob: str) -> str:
        return f"{path} (blob {blob[:12]}) at {self._named}"

    def _fault(self, sha: str, kind: str, what: str, failure: object) -> SourceError:
        """Say why git could not read ``sha``, a ``kind`` the operator knows as ``what``."""
        denied = denied_in_repository(self._path) or denied_in_object_store(
            common_dir(Path(self._repo.git_dir)) / "objects", sha
        )
        if denied is not None:  # which git would call missing, corrupt, or no repository
            return SourceError(cannot_be_read(self._path, denied))
        fault = object_fault(self._repo, sha, kind)
        if isinstance(fault, GitFailed):
            return _unreadable_by_git(self._path, fault.said)
        if fault is not None:
            return DamagedRepository(
                damaged(self._path, what, fault, self._clone_of),
                found=damage_found(self._path, what, fault, self._clone_of),
            )
        # git reads the object whole: whatever failed, it was not the object store.
        return SourceError(f"cannot read {what} in {self._path} ({failure})")

    def close(self) -> None:
        """Stop the git helper processes this snapshot started."""
        self._repo.close()


class DirectorySnapshot:
    """The files under a directory that is not a git repository."""

    _SKIP = frozenset({".git", ".venv", "node_modules", "__pycache__", "site"})

    def __init__(self, root: Path) -> None:
        if not root.is_dir():  # os.walk would list nothing, and the source be emptied
            raise SourceError(
                f"{root} is not a directory (any more), so nothing of it was read and its last "
                "index keeps answering; put it back and run the build again"
            )
        self._root = root
        try:
            self._entries = self._scan()
        except PermissionError as denied:
            raise SourceError(cannot_be_read(root, denied)) from None
        digest = hashlib.sha1(usedforsecurity=False)
        for entry in self._entries:
            digest.update(f"{entry.path}\0{entry.blob}\0".encode())
        self.commit = "worktree-" + digest.hexdigest()[:12]

    def _scan(self) -> list[FileEntry]:
        entries = []
        # os.walk passes over a directory it may not list, which would leave its files out of
        # the index as if deleted: that one is raised instead.
        for dirpath, dirnames, filenames in os.walk(self._root, onerror=_raise_if_denied):
            dirnames[:] = sorted(d for d in dirnames if d not in self._SKIP)
            for name in sorted(filenames):
                full = Path(dirpath) / name
                if full.is_symlink() or not full.is_file():
                    continue
                stat = full.stat()
                rel = full.relative_to(self._root).as_posix()
                entries.append(FileEntry(rel, stat.st_size, f"{stat.st_size}-{stat.st_mtime_ns}"))
        return entries

    def files(self) -> list[FileEntry]:
        """Every regular file under the directory, in path order."""
        return list(self._entries)

    def read(self, entry: FileEntry) -> bytes:
        """Read one file from disk."""
        try:
            return (self._root / entry.path).read_bytes()
        except PermissionError as denied:
            raise SourceError(cannot_be_read(self._root, denied)) from None

    def close(self) -> None:
        """Nothing to release."""


def _raise_if_denied(exc: OSError) -> None:
    if isinstance(exc, PermissionError):
        raise exc
