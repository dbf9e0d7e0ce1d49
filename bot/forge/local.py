"""Local sources: git repositories on disk named in ``sources.local``.

Each entry is a git repository, or a directory whose children are. A repository's name is
its directory name (a bare repository's without its ``.git`` ending); the embedded default
(this checkout indexing itself) is called ``phpbotscout`` whatever its directory is called.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

from bot.errors import SourceError
from bot.forge.candidates import Candidate, Verdict
from bot.forge.predicate import same_path
from bot.git_access import LET_READ, unreadable
from bot.snapshot import head_branch_is_unborn

EMBEDDED_NAME = "phpbotscout"
# Nothing lists the embedded default in sources.local: it is read because no file was found.
EMBEDDED_DETAIL = (
    "the embedded default: no configuration file was found, so this checkout's own "
    "documentation is indexed; a phpbotscout.toml naming sources replaces it"
)


def is_repository(path: Path) -> bool:
    """Whether ``path`` is a git repository: the top of a working tree, or a bare one."""
    return (path / ".git").exists() or _is_bare(path)


def _is_bare(path: Path) -> bool:
    # What git itself looks for before it takes a directory for a repository (a mirror,
    # ``x.git``, has no working tree and so no ``.git`` inside it).
    return (path / "HEAD").is_file() and (path / "objects").is_dir() and (path / "refs").is_dir()


def _name(path: Path) -> str:
    if path.name.endswith(".git") and len(path.name) > len(".git") and _is_bare(path):
        return path.name.removesuffix(".git")
    return path.name


def _tidy(path: Path) -> Path:
    """``path`` without ``..`` steps, when that still names the same place.

    Paths in the configuration are relative to its file, so ``../repos/alpha`` arrives as
    ``/etc/bot/../repos/alpha``: shown as it is, and compared as text with the same
    repository reached another way, it reads as a different one. After a symbolic link,
    ``..`` means the link target's parent, which the shorter path would not name; such a
    path is kept as configured.
    """
    tidy = Path(os.path.normpath(path))
    if tidy == path:
        return path
    try:
        return tidy if os.path.samefile(tidy, path) else path
    except OSError:  # nothing there to compare: the shorter form is what the text says
        return tidy


def discover_local(
    paths: Sequence[Path],
    exclude: Collection[str],
    *,
    embedded: bool = False,
    indexed: Mapping[str, str] | None = None,
    setting: str | None = "sources.local",
) -> list[Candidate]:
    """Return a candidate for every repository the configured paths name.

    Exclusions are applied first and are absolute, and ignore case as GitLab's do. A path
    that is missing, a file, or a directory holding no repositories is rejected as excluded
    when ``exclude`` lists its name; otherwise it yields an *unresolved* candidate that says
    so, listed under its name and its path, ``NAME (missing at PATH)``; only the directory
    of a repository ``indexed`` (name to location, from the index) from that very path keeps
    the repository's name, so that the repository is the one reported missing. An entry of a
    configured directory that cannot be examined is such a candidate on its own, and the
    directory's other repositories are read as usual. One repository reached through several
    configured paths is one candidate; of different repositories with one name, the one
    reached first takes the name and every later one is a duplicate listed under the name
    and its path. A repository with no commit yet is rejected as ``empty``, as a GitLab
    project is; one that cannot be read to tell (unreadable since it was listed, or one git
    cannot open) is unresolved under its own name, and the others are read as usual.

    ``setting`` is what the paths were configured by: a path that cannot be used says to
    correct it there. None leaves that advice to the caller (the benchmark's ``--repos``).
    """
    found: list[tuple[str, Path]] = []
    unusable: list[tuple[Path, str]] = []
    configured: set[Path] = set()
    for path in (_tidy(p) for p in paths):
        if path in configured:  # listed twice in the same words: once is what was meant
            continue
        configured.add(path)
        if embedded:
            found.append((EMBEDDED_NAME, path))
            continue
        repositories, problems = _reach(path, setting)
        for where, problem in problems:
            excluded = _excluded_name(where, exclude)
            if excluded is not None:
                # Exclusion comes first: the entry is excluded as it would be were it there,
                # and no missing repository of a name the configuration shuts out is reported.
                found.append((excluded, where))
            else:
                unusable.append((where, problem))
        found.extend(repositories)

    # The same repository reached through several paths (a directory and its parent, a
    # symbolic link) is one repository, read once.
    reached: dict[Path, tuple[str, list[Path]]] = {}
    for name, path in found:
        reached.setdefault(path.resolve(), (name, []))[1].append(path)

    # The first repository of a name, in the order the entries are listed (a directory's
    # repositories in the order of their names), takes the name; each later one is listed
    # under the name and its path, so that every one of them is explained on its own.
    candidates: list[Candidate] = []
    first: dict[str, Path] = {}
    for name, (path, *others) in reached.values():
        owner = first.setdefault(name, path)
        key = name if owner == path else f"{name} (duplicate at {path})"
        if _excluded(name, exclude):
            candidates.append(
                _local(key, path, Verdict.REJECTED, "excluded", "listed in sources.exclude")
            )
        elif owner != path:
            detail = (
                f"is another repository called {name!r}, so it is not indexed: the name goes "
                f"to {owner}, which sources.local reaches first. Rename one of them to index both"
            )
            candidates.append(_unresolved(key, path, "duplicate", detail))
        else:
            candidates.append(_admitted(name, path, others, embedded=embedded))
    names = {name for name, _ in found}
    return candidates + [
        _unresolved(_unusable_name(path, names, indexed or {}), path, "missing", detail)
        for path, detail in unusable
    ]


def _reach(
    path: Path, setting: str | None
) -> tuple[list[tuple[str, Path]], list[tuple[Path, str]]]:
    """The repositories a configured path names, and the places there that cannot be used.

    Such a place is the path itself, or an entry of the directory it is, each with why and,
    given the ``setting`` it was configured by, what to do.
    """
    try:
        return _look_in(path, setting)
    except OSError as exc:
        # Permission denied, a name too long, a disk failing: nothing is known of what the
        # path holds, so it is unresolved like a missing one and what it held keeps answering.
        repair = f"correct the path in {setting} or {LET_READ}" if setting else LET_READ
        return [], [(path, unreadable(_reason(path, exc), repair))]


def changed_since_discovery(path: Path) -> str | None:
    """Why a repository discovery admitted can no longer be read, or ``None`` while it can.

    Discovery and the reading of a source are apart in time (other sources are read between
    them), and a repository moved, removed or replaced meanwhile must fail on its own: read as
    it is, a directory with nothing in it would be indexed as a source with no documents.
    """
    todo = "put it back, or take it out of sources.local, and run the build again"
    try:
        if not path.exists():
            what = "no longer exists"
        elif not path.is_dir():
            what = "is a file now, not a git repository"
        elif not is_repository(path):
            what = "is no longer a git repository"
        else:
            return None
    except OSError as exc:
        what = f"cannot be read any more ({_reason(path, exc)})"
        todo = f"{LET_READ}, or take it out of sources.local"
    return (
        f"{path} {what}: it changed after discovery admitted it, so nothing of it was read "
        f"this run and its last index keeps answering. To refresh it, {todo}"
    )


def _reason(path: Path, exc: OSError) -> str:
    """What the system said, naming the entry inside ``path`` it said it of."""
    said = exc.strerror or str(exc)
    inside = exc.filename is not None and Path(os.fsdecode(exc.filename)) != path
    return f"{said}: {os.fsdecode(exc.filename)}" if inside else said


def _look_in(
    path: Path, setting: str | None
) -> tuple[list[tuple[str, Path]], list[tuple[Path, str]]]:
    # A path moved, mistyped or deleted: which, only the operator knows.
    fix = f"correct or remove the path in {setting}" if setting else None
    if not path.exists():
        return [], [(path, _advised("does not exist", fix))]
    if not path.is_dir():
        file = "is a file, not a repository or a directory of repositories"
        return [], [(path, _advised(file, fix))]
    if is_repository(path):
        return [(_name(path), path)], []
    repositories: list[tuple[str, Path]] = []
    unreadable: list[tuple[Path, str]] = []
    for child in sorted(path.iterdir()):
        # Each entry on its own: one the system will not let us examine says nothing of its
        # siblings, which are read as usual while it alone is unresolved.
        try:
            if child.is_dir() and is_repository(child):
                repositories.append((_name(child), child))
        except OSError as exc:
            unreadable.append((child, _unreadable_entry(path, child, exc)))
    if not repositories and not unreadable:
        empty = "holds no git repositories (and is not one)"
        return [], [
            (path, _advised(empty, f"put a git repository there, or {fix}" if fix else None))
        ]
    return repositories, unreadable


def _advised(fact: str, fix: str | None) -> str:
    return f"{fact}: {fix}" if fix else fact


def _unreadable_entry(directory: Path, entry: Path, exc: OSError) -> str:
    return (
        f"cannot be read ({_reason(entry, exc)}), so whether it is a repository is not known: "
        f"{LET_READ}, or add {entry.name!r} to sources.exclude. "
        f"The other repositories in {directory} are read as usual"
    )


def _excluded(name: str, exclude: Collection[str]) -> bool:
    """Whether ``sources.exclude`` names the repository, ignoring case as a GitLab path does."""
    return any(same_path(name, entry) for entry in exclude)


def _excluded_name(path: Path, exclude: Collection[str]) -> str | None:
    """The name ``sources.exclude`` lists for a path that cannot be used, if it lists one.

    Nothing tells whether the path was a bare repository, so its name counts with its
    ``.git`` ending and without it.
    """
    for name in (path.name, path.name.removesuffix(".git")):
        if _excluded(name, exclude):
            return name
    return None


def _unusable_name(path: Path, found: Collection[str], indexed: Mapping[str, str]) -> str:
    """The name an unusable configured path, or entry of a configured directory, is listed under.

    Nothing tells a missing repository from a missing directory of them, so the path's own
    name may be any repository's: listed under it, the entry would overwrite that
    repository's verdict. Only a repository the index holds from this very path, and that
    no path reaches this run, is named as itself: its own directory has gone, and it keeps
    answering from its last index, reported missing.
    """
    for name in (path.name, path.name.removesuffix(".git")):
        if indexed.get(name) == str(path) and name not in found:
            return name
    return f"{path.name or path} (missing at {path})"


def _admitted(name: str, path: Path, others: Sequence[Path], *, embedded: bool) -> Candidate:
    try:
        empty = is_repository(path) and head_branch_is_unborn(path)
    except OSError as exc:  # listed a moment ago, unreadable now
        return _cannot_tell(name, path, unreadable(_reason(path, exc)))
    except SourceError as exc:  # a repository git cannot open
        return _cannot_tell(name, path, str(exc).removeprefix(f"{path} "))
    if empty:
        detail = "has no commits yet; it is indexed once something is committed"
        return _local(name, path, Verdict.REJECTED, "empty", detail)
    detail = EMBEDDED_DETAIL if embedded else "listed in sources.local"
    also = sorted({str(p) for p in others} - {str(path)})
    if also:
        detail += f" (also reached as {', '.join(also)}; read once)"
    return _local(name, path, Verdict.ADMITTED, "local", detail)


def _cannot_tell(name: str, path: Path, problem: str) -> Candidate:
    """A listed repository that cannot be read to tell whether it is empty: unresolved.

    It fails alone and under its own name, so that its last index keeps answering (a missing
    source's name would not be its own) while the other repositories are read as usual.
    """
    detail = (
        f"{problem}, or add {name!r} to sources.exclude. Until then its last index, if any, "
        "keeps answering"
    )
    return _unresolved(name, path, "missing", detail)


def _local(name: str, path: Path, verdict: Verdict, clause: str, detail: str) -> Candidate:
    return Candidate(name, "local", str(path), verdict, clause, detail, path=path)


def _unresolved(name: str, path: Path, clause: str, detail: str) -> Candidate:
    return _local(name, path, Verdict.UNRESOLVED, clause, f"{path} {detail}")
