"""Why git could not read an object of a repository, told apart by git itself.

An object that is not in the object store at all and one that is there but damaged on disk (a
loose object whose compressed bytes were altered or cut short, a packed one that no longer
inflates) need different repairs: ``git fetch --refetch`` (git 2.36 or later) brings back the
first (a plain fetch does not, when a commit it already holds names the lost object), while a
fetch of any kind stops at the second, so it calls for a fresh clone or a backup. Both differ
again from a repository git cannot run in at all. ``git cat-file -e`` answers 1 only for an
object it cannot find, 0 for one it finds however damaged, anything else when git itself
failed; reading the object through then says whether its bytes are whole. A file this user may
not read is no object fault, though git calls it one: ``bot.git_access`` tells it apart first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import git

_SHA = re.compile(r"\b[0-9a-f]{40}\b|\b[0-9a-f]{64}\b")


@dataclass(frozen=True, slots=True)
class Missing:
    """git runs, and the object is not in the object store."""


@dataclass(frozen=True, slots=True)
class Corrupt:
    """The object is in the object store, but git cannot read it whole: git's words why."""

    said: str


@dataclass(frozen=True, slots=True)
class GitFailed:
    """git could not look the object up at all (a configuration it cannot parse): its words."""

    said: str


Fault = Missing | Corrupt | GitFailed


def object_fault(repo: git.Repo, sha: str, kind: str) -> Fault | None:
    """What is wrong with object ``sha`` of ``repo``, or None where git reads it whole.

    ``kind`` is the type the object should have (``commit``, ``tree``, ``blob``): asked to read
    one of a type it is told, git names the damaged file, which it does not when it must first
    find out the type from the object's own damaged header.
    """
    status, _, said = run_git(repo, "cat-file", "-e", sha)
    if status == 1:
        return Missing()
    if status != 0:
        return GitFailed(git_words(said) or f"exit status {status}")
    status, _, said = run_git(repo, "cat-file", kind, sha)
    if status == 0:
        return None
    return Corrupt(
        git_words(said) or f"'git cat-file {kind} {sha}' ended with exit status {status}"
    )


def sha_named(said: str) -> str | None:
    """The first object git's message names, if it names one."""
    found = _SHA.search(said)
    return None if found is None else found.group()


def damage_found(
    repo_path: Path, what: str, fault: Missing | Corrupt, clone_of: str | None = None
) -> str:
    """What is wrong with ``what`` (an object, named for the operator), without what to do."""
    where = repo_path if clone_of is None else f"the clone of {clone_of} at {repo_path}"
    if isinstance(fault, Missing):
        return f"{where} is damaged: {what} is missing from its object store"
    return f"{where} is damaged: {what} is in its object store but corrupt ({fault.said})"


def damaged(
    repo_path: Path, what: str, fault: Missing | Corrupt, clone_of: str | None = None
) -> str:
    """The message for ``what`` (an object, named for the operator) found so at fault.

    ``clone_of`` names the forge source whose clone, kept by phpbotscout itself, ``repo_path``
    is: removing it is the whole repair, as the next build clones it again.
    """
    found = damage_found(repo_path, what, fault, clone_of)
    if clone_of is not None:
        return f"{found}. Remove it and the next build clones it again"
    if isinstance(fault, Missing):
        return (
            f"{found}. Run 'git fsck' in it to see what else is lost, then 'git fetch --refetch' "
            "(git 2.36 or later) to get every object again from its remote, or restore it from "
            "a backup, or clone it again"
        )
    return (
        f"{found}. A fetch stops at it, so cannot repair it: run 'git fsck' in it to see what "
        "else is corrupt, then clone it again or restore it from a backup"
    )


def run_git(repo: git.Repo, *args: str) -> tuple[int, bytes, str]:
    """Run ``git ARGS`` in ``repo``: its exit status, its output, and what it said on stderr.

    A failure is returned, not raised, so that git's own words are read, not GitPython's
    account of them; the output is bytes, as a blob need not be text.
    """
    status, out, said = repo.git.execute(
        ["git", *args],
        with_extended_output=True,
        with_exceptions=False,
        stdout_as_string=False,
    )
    return status, out, said if isinstance(said, str) else said.decode("utf-8", "replace")


def git_words(said: str) -> str:
    """The account git gives, in one line: the line that calls the object corrupt, if one does.

    git names the damaged file there (``loose object X (stored in PATH) is corrupt``); the lines
    before it are zlib's view of the same failure.
    """
    lines = [
        line.strip().removeprefix("fatal: ").removeprefix("error: ")
        for line in said.splitlines()
        if line.strip()
    ]
    corrupt = [line for line in lines if "corrupt" in line and "stored in" in line]
    if corrupt:
        return corrupt[-1]
    return lines[0].rstrip(".") if lines else ""
