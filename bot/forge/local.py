"""Local sources: git repositories on disk named in ``sources.local``.

Each entry is a git repository, or a directory whose children are. A repository's name is
its directory name; the embedded default (this checkout indexing itself) is called
``phpbotscout`` whatever its directory is called.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from bot.forge.candidates import Candidate, Verdict

EMBEDDED_NAME = "phpbotscout"


def is_repository(path: Path) -> bool:
    """Whether ``path`` is the top of a git working tree (``.git`` directory or file)."""
    return (path / ".git").exists()


def discover_local(
    paths: Sequence[Path], exclude: Collection[str], *, embedded: bool = False
) -> list[Candidate]:
    """Return a candidate for every repository the configured paths name.

    Exclusions are applied first and are absolute. A path that is missing, or a directory
    holding no repositories, yields an *unresolved* candidate that says so.
    """
    found: list[tuple[str, Path]] = []
    problems: list[Candidate] = []
    for path in paths:
        if embedded:
            found.append((EMBEDDED_NAME, path))
        elif not path.is_dir():
            problems.append(_unresolved(path.name or str(path), path, "missing", "does not exist"))
        elif is_repository(path):
            found.append((path.name, path))
        else:
            children = sorted(c for c in path.iterdir() if c.is_dir() and is_repository(c))
            if not children:
                detail = "holds no git repositories (and is not one)"
                problems.append(_unresolved(path.name, path, "missing", detail))
            found.extend((child.name, child) for child in children)

    candidates: list[Candidate] = []
    seen: dict[str, Path] = {}
    for name, path in found:
        if name in exclude:
            candidates.append(
                Candidate(
                    name,
                    "local",
                    str(path),
                    Verdict.REJECTED,
                    "excluded",
                    "listed in sources.exclude",
                    path=path,
                )
            )
        elif name in seen:
            detail = f"another repository is already called {name!r} ({seen[name]}); rename one"
            candidates.append(_unresolved(name + " (duplicate)", path, "duplicate", detail))
        else:
            seen[name] = path
            candidates.append(
                Candidate(
                    name,
                    "local",
                    str(path),
                    Verdict.ADMITTED,
                    "local",
                    "listed in sources.local",
                    path=path,
                )
            )
    return candidates + problems


def _unresolved(name: str, path: Path, clause: str, detail: str) -> Candidate:
    return Candidate(
        name, "local", str(path), Verdict.UNRESOLVED, clause, f"{path} {detail}", path=path
    )
