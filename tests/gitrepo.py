"""Real git repositories built in a temporary directory, with a fixed identity and clock."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+0000",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+0000",
}


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` and return its stdout."""
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(
        ["git", "-C", str(repo), *args], env=env, check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def write_files(repo: Path, files: dict[str, str | bytes | None]) -> None:
    """Write (or, for ``None``, delete) files under ``repo``."""
    for rel, content in files.items():
        path = repo / rel
        if content is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def make_repo(path: Path, files: dict[str, str | bytes | None], branch: str = "main") -> str:
    """Create a repository at ``path`` with one commit holding ``files``; return the SHA."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", branch)
    return commit(path, files, "initial")


def commit(repo: Path, files: dict[str, str | bytes | None], message: str = "change") -> str:
    """Apply ``files`` and commit everything; return the new SHA."""
    write_files(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def loose_object(repo: Path, sha: str) -> Path:
    """The file of loose object ``sha`` in the working tree ``repo``."""
    return repo / ".git" / "objects" / sha[:2] / sha[2:]


def corrupt_loose_object(repo: Path, sha: str) -> None:
    """Alter one byte inside the compressed data of loose object ``sha``, as a bad disk would."""
    _flip(loose_object(repo, sha), lambda data: len(data) // 2)


def corrupt_packed_object(repo: Path, sha: str) -> Path:
    """Pack every object of ``repo``, then alter one byte of ``sha``'s entry; the pack's path."""
    git(repo, "repack", "-q", "-a", "-d")
    [index] = (repo / ".git" / "objects" / "pack").glob("*.idx")
    with index.open("rb") as listing:
        offsets = subprocess.run(
            ["git", "show-index"], stdin=listing, check=True, capture_output=True, text=True
        ).stdout
    offset = next(int(line.split()[0]) for line in offsets.splitlines() if sha in line)
    pack = index.with_suffix(".pack")
    _flip(pack, lambda _: offset + 8)  # past the entry's header, inside its compressed data
    return pack


def _flip(file: Path, where: Callable[[bytes], int]) -> None:
    data = bytearray(file.read_bytes())
    data[where(bytes(data))] ^= 0xFF
    file.chmod(0o644)  # git writes objects read-only
    file.write_bytes(bytes(data))
