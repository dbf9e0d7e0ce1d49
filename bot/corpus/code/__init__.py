"""Code as prose: each language's chunker cuts a source file into one chunk per symbol.

``chunk_code`` is the single entry point the indexer calls; it dispatches on the file's
language and returns the file's chunks, or raises ``Unchunkable`` with a reason to log.
Each language keeps documentation and declarations and leaves bodies out (knowledge index,
"Code is indexed as prose, or not at all"):

- ``go``: the package doc, exported functions, methods, types and variables with their doc
  comments and signatures, and every constant with its value;
- ``python``: the module docstring, public classes, functions and methods with their
  docstrings and signatures, and UPPER_CASE constants at module level or in a class;
- ``rust``: crate and module ``//!`` docs, public items with their ``///`` docs and
  signatures, and constants with their values.

Every chunk's ``terms`` hold the words of the symbol's own identifiers (``defaultTakeCount``
gives ``default take count``): searched, never shown.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.corpus.chunk import Chunk
from bot.corpus.code import go, python, rust
from bot.corpus.code.source import Unchunkable
from bot.corpus.kinds import language

__all__ = ["Unchunkable", "chunk_code"]

_CHUNKERS: dict[str, Callable[[str, bytes], list[Chunk]]] = {
    "go": go.chunk_go,
    "python": python.chunk_python,
    "rust": rust.chunk_rust,
}


def chunk_code(path: str, data: bytes) -> list[Chunk]:
    """Cut one code file into symbol chunks, in the order they appear in the file.

    Args:
        path: the file's repository-relative POSIX path; its suffix picks the language.
        data: the file's bytes, exactly as stored.

    Raises:
        Unchunkable: the file is skipped; the message says why.
    """
    chunker = _CHUNKERS.get(language(path))
    if chunker is None:
        raise Unchunkable(f"no code chunker for {path}")
    return chunker(path, data)
