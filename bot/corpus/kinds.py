"""Which files are read, decided from the path and size alone.

Everything classified ``Kind.NONE`` is never opened (indexing reference, "Which files are
read").
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

from bot.corpus.chunk import Kind
from bot.corpus.site import SiteLayout

MAX_FILE_BYTES = 1024 * 1024  # generated API dumps and vendored blobs live above this

MARKDOWN_SUFFIXES = (".md", ".markdown")
CODE_SUFFIXES = (".go", ".py", ".rs")
# Directories whose contents are someone else's code, generated output, or test data.
SKIPPED_DIRS = frozenset(
    {"vendor", "third_party", "third-party", "node_modules", "testdata", "__pycache__"}
)
TEST_DIRS = frozenset({"test", "tests", "benches"})
# Cargo runs a package's build.rs, beside its Cargo.toml, before compiling it: it generates
# code or links libraries, and declares nothing a user of the crate calls. A build.rs
# elsewhere (``src/build.rs``) is a module like any other.
_BUILD_SCRIPT = "build.rs"
_MANIFEST = "Cargo.toml"
_README = re.compile(r"readme(\.md|\.markdown)?", re.IGNORECASE)
_CHANGELOG = re.compile(r"(changelog|changes|history|news)(\.md|\.markdown)?", re.IGNORECASE)


def classify(
    path: str,
    size: int,
    site: SiteLayout | None,
    *,
    other_markdown: bool,
    crates: frozenset[str],
) -> Kind:
    """Return the kind of the file at repository-relative ``path``.

    Args:
        path: POSIX path relative to the repository root.
        size: the file's size in bytes.
        site: the repository's docs site, when it publishes one; pages under its docs
            directory are ``Kind.DOC``.
        other_markdown: whether markdown outside the site is indexed (always for local
            sources; for forge sources only with ``index.markdown = "all"``).
        crates: the directories holding a ``Cargo.toml`` (``crate_roots``), whose
            ``build.rs`` is a build script.
    """
    if size > MAX_FILE_BYTES:
        return Kind.NONE
    parts = path.split("/")
    directories, name = parts[:-1], parts[-1]
    if any(d.startswith(".") or d in SKIPPED_DIRS for d in directories):
        return Kind.NONE
    lower = name.lower()
    at_root = not directories

    if at_root and _README.fullmatch(name):
        return Kind.README
    if at_root and _CHANGELOG.fullmatch(name):
        return Kind.CHANGELOG
    if lower.endswith(MARKDOWN_SUFFIXES):
        if site is not None and site.contains(path):
            return Kind.DOC
        return Kind.MARKDOWN if other_markdown else Kind.NONE
    if lower.endswith(CODE_SUFFIXES) and not _is_test(directories, lower):
        if name == _BUILD_SCRIPT and "/".join(directories) in crates:
            return Kind.NONE
        return Kind.CODE
    return Kind.NONE


def crate_roots(paths: Iterable[str]) -> frozenset[str]:
    """The directories (``""`` for the root) of the given paths that hold a ``Cargo.toml``."""
    return frozenset(posixpath.dirname(p) for p in paths if posixpath.basename(p) == _MANIFEST)


def _is_test(directories: list[str], name: str) -> bool:
    if name.endswith("_test.go"):
        return True
    if name.endswith(".py") and (
        name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
    ):
        return True
    return any(d in TEST_DIRS for d in directories)


def language(path: str) -> str:
    """Return the language of a code file from its suffix (``go``, ``python``, ``rust``)."""
    return {".go": "go", ".py": "python", ".rs": "rust"}.get(posixpath.splitext(path)[1], "")
