"""From a file's bytes to a document's chunks: the one place that dispatches on kind."""

from __future__ import annotations

from dataclasses import dataclass

from bot.corpus.chunk import Chunk, Kind
from bot.corpus.code import Unchunkable, chunk_code
from bot.corpus.markdown import chunk_markdown, title_from_path

# Bump when chunking rules change: every source is then re-read once on its next refresh.
CORPUS_VERSION = 52

_BINARY_SNIFF_BYTES = 8192

NOTHING_DOCUMENTED = "no documented symbols"
NO_TEXT = "no text"
# Reasons every build meets many times (a main package, an empty page): not worth a log line.
ROUTINE_SKIPS = frozenset({NOTHING_DOCUMENTED, NO_TEXT})


@dataclass(frozen=True, slots=True)
class Cut:
    """A file's chunks, or the reason it yielded none."""

    title: str
    chunks: tuple[Chunk, ...]
    skipped: str = ""


def cut_file(path: str, kind: Kind, data: bytes) -> Cut:
    """Cut one file of the given kind into chunks; never raises for bad content."""
    if b"\0" in data[:_BINARY_SNIFF_BYTES]:
        return Cut("", (), "binary content")
    if kind is Kind.CODE:
        try:
            chunks = chunk_code(path, data)
        except Unchunkable as exc:
            return Cut("", (), str(exc))
        title = chunks[0].heading if chunks else ""
        return Cut(title, tuple(chunks), "" if chunks else NOTHING_DOCUMENTED)
    text = data.decode("utf-8", errors="replace")
    chunks = chunk_markdown(text, title_from_path(path))
    if not chunks:
        return Cut("", (), NO_TEXT)
    title = chunks[0].heading_path[0] if chunks[0].heading_path else chunks[0].heading
    return Cut(title, tuple(chunks))
