"""From a source's commits to the documents its re-index writes.

Docs, READMEs and other markdown come from the branch; code comes from the latest release
when the source has one (sources reference, "Which commit each kind comes from"), and stays
exactly as indexed while the release cannot be looked up. A file whose content, kind and
citation rules are unchanged since the last index is not read again: only the commit it is
cited at moves.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from bot.corpus.chunk import Kind
from bot.corpus.code.rust_modules import hidden_files, module_declarations
from bot.corpus.documents import CORPUS_VERSION, ROUTINE_SKIPS, cut_file
from bot.corpus.kinds import classify, crate_roots, language
from bot.corpus.site import SiteLayout, find_config, parse_config
from bot.corpus.urls import page_url
from bot.index.writer import DocumentData, KeptDocument, SourcePlan
from bot.snapshot import FileEntry, Snapshot

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Scope:
    """What a source may contribute.

    ``site``: whether its docs site counts (a forge source admitted without a published site
    contributes no doc pages). ``other_markdown``: whether markdown outside the site is read.
    ``code``: whether source code is read.
    """

    site: bool = True
    other_markdown: bool = True
    code: bool = True


@dataclass(frozen=True, slots=True)
class ReleaseCode:
    """Code read at the latest release, from ``snapshot``, its commit.

    ``tag`` is recorded with the plan, so that status names the release the code came from.
    """

    snapshot: Snapshot
    tag: str


@dataclass(frozen=True, slots=True)
class HeldCode:
    """Code left exactly as indexed, because the latest release could not be looked up.

    Reading it from the branch could index code no release ships yet. ``tag`` and ``commit``
    are the release it was indexed from (``None`` when it came from the branch, or when no
    code is indexed yet); ``paths`` are its documents, none of which is read or rewritten.
    """

    tag: str | None
    commit: str | None
    paths: frozenset[str]


# The embedded default answers people asking how to use phpbotscout: its documentation (the
# docs site, README and changelog) is the corpus. Its own code and its benchmark and design
# notes would outrank the page that answers on half such questions.
DOCUMENTATION_ONLY = Scope(other_markdown=False, code=False)


def detect_site(snapshot: Snapshot, files: list[FileEntry]) -> tuple[SiteLayout | None, str]:
    """The snapshot's docs site, and a note when its config could not be used."""
    by_path = {f.path: f for f in files}
    config = find_config(by_path)
    if config is None:
        return None, ""
    try:
        text = snapshot.read(by_path[config]).decode("utf-8")
        return parse_config(config, text), ""
    except (ValueError, UnicodeDecodeError) as exc:
        return None, f"site config unusable: {exc}"


def fingerprint(kind: Kind, blob: str, cited_at: str | None) -> str:
    """What must stay equal for a document's chunks to be reused as they are."""
    key = f"{CORPUS_VERSION}\0{kind.value}\0{blob}\0{cited_at or ''}"
    return hashlib.sha1(key.encode(), usedforsecurity=False).hexdigest()


def plan_source(
    name: str,
    branch: Snapshot,
    code: ReleaseCode | HeldCode | None,
    existing: Mapping[str, str],
    *,
    scope: Scope = Scope(),
    force: bool = False,
    on_file: Callable[[str], None] | None = None,
) -> SourcePlan:
    """Read what changed and return the source's plan.

    Args:
        name: the source's name.
        branch: the default branch's snapshot (docs, README, changelog, markdown).
        code: where code comes from: the latest release, held as indexed, or (``None``) the
            branch when there is no release.
        existing: each indexed path's fingerprint, to skip unchanged files.
        scope: what this source may contribute.
        force: read every file even when unchanged.
        on_file: called with each path considered, for progress reporting.
    """
    branch_files = branch.files()
    site, note = detect_site(branch, branch_files) if scope.site else (None, "")
    release = code.snapshot if isinstance(code, ReleaseCode) else None

    work: list[tuple[Snapshot, FileEntry, Kind]] = []
    crates = crate_roots(entry.path for entry in branch_files)
    code_crates = crates  # the crates of the tree the code is read from: the release's, if any
    for entry in branch_files:
        kind = classify(
            entry.path, entry.size, site, other_markdown=scope.other_markdown, crates=crates
        )
        if kind is Kind.CODE and (not scope.code or code is not None):
            continue
        if kind is not Kind.NONE:
            work.append((branch, entry, kind))
    if release is not None and scope.code:
        release_files = release.files()
        code_crates = crate_roots(entry.path for entry in release_files)
        for entry in release_files:
            kind = classify(entry.path, entry.size, None, other_markdown=False, crates=code_crates)
            if kind is Kind.CODE:
                work.append((release, entry, kind))

    fresh: list[DocumentData] = []
    kept: list[KeptDocument] = []
    skipped: list[tuple[str, str]] = [(site.config_path if site else "", note)] if note else []
    hidden = _hidden_rust_modules(work, code_crates)
    for snapshot, entry, kind in work:
        if on_file:
            on_file(entry.path)
        if entry.path in hidden:
            log.debug("skipped %s/%s: %s", name, entry.path, hidden[entry.path])
            skipped.append((entry.path, hidden[entry.path]))
            continue
        cited_at = (
            page_url(site.site_url, site.page_path(entry.path))
            if kind is Kind.DOC and site and site.site_url
            else None
        )
        print_ = fingerprint(kind, entry.blob, cited_at)
        if not force and existing.get(entry.path) == print_:
            kept.append(KeptDocument(entry.path, snapshot.commit))
            continue
        cut = cut_file(entry.path, kind, snapshot.read(entry))
        if cut.skipped:
            level = logging.DEBUG if cut.skipped in ROUTINE_SKIPS else logging.INFO
            log.log(level, "skipped %s/%s: %s", name, entry.path, cut.skipped)
            skipped.append((entry.path, cut.skipped))
            continue
        fresh.append(
            DocumentData(
                path=entry.path,
                kind=kind,
                title=cut.title,
                page_url=cited_at,
                commit=snapshot.commit,
                content_sha=entry.blob,
                fingerprint=print_,
                chunks=cut.chunks,
            )
        )
    held = code if isinstance(code, HeldCode) else None
    return SourcePlan(
        name=name,
        branch_commit=branch.commit,
        release_tag=code.tag if code else None,
        release_commit=held.commit if held else release.commit if release else None,
        corpus_version=CORPUS_VERSION,
        site_url=site.site_url if site else None,
        fresh=tuple(fresh),
        kept=tuple(kept),
        held=tuple(sorted(held.paths)) if held else (),
        skipped=tuple(skipped),
    )


def _hidden_rust_modules(
    work: list[tuple[Snapshot, FileEntry, Kind]], crates: frozenset[str]
) -> dict[str, str]:
    """The Rust files to be read whose module its parent hides, each with the reason.

    Whether a file is hidden depends on the other files, so every Rust file is read for its
    ``mod`` declarations, unchanged ones too: a file whose parent stops hiding it must be
    read again, one its parent starts hiding must go.
    """
    rust = [(s, e) for s, e, kind in work if kind is Kind.CODE and language(e.path) == "rust"]
    declarations = {entry.path: module_declarations(s.read(entry)) for s, entry in rust}
    return hidden_files(declarations, declarations.keys(), crates)
