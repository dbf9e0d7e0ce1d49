"""Code as prose: each language's chunker cuts a source file into one chunk per symbol.

``chunk_code`` is the single entry point the indexer calls; it dispatches on the file's
language and returns the file's chunks, or raises ``Unchunkable`` with a reason to log.
"""

from __future__ import annotations

from bot.corpus.chunk import Chunk


class Unchunkable(Exception):
    """A code file that yields no chunks, with the reason (generated, unparsable, ...)."""


def chunk_code(path: str, data: bytes) -> list[Chunk]:
    """Cut one code file into symbol chunks.

    Raises:
        Unchunkable: the file is skipped; the message says why.
    """
    raise Unchunkable(f"no code chunker for {path} yet")
