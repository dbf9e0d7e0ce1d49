"""The values the corpus code produces: file kinds and chunks."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Kind(StrEnum):
    """What a file is, decided from its path alone.

    ``MARKDOWN`` is markdown outside any docs site (a nested README, ``Documentation/``),
    indexed for local sources and, when ``index.markdown = "all"``, for forge sources.
    """

    DOC = "doc"
    README = "readme"
    CHANGELOG = "changelog"
    CODE = "code"
    MARKDOWN = "markdown"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class Chunk:
    """One retrievable unit of a file.

    ``text`` is exactly the file's lines ``start_line``..``end_line`` (1-based, inclusive),
    each without its line terminator (LF or CRLF) and joined by LF, or, for a part of an
    oversized section that was cut mid-line, exactly the bytes ``start_byte``..``end_byte``.
    ``terms`` are search-only words (split identifiers): indexed, never shown, never sent to a
    model. ``weight`` multiplies the chunk's retrieval score.
    """

    heading: str
    heading_path: tuple[str, ...]
    text: str
    start_line: int
    end_line: int
    start_byte: int
    end_byte: int
    anchor: str = ""
    symbol: str = ""
    terms: str = ""
    weight: float = 1.0  # ranking multiplier: below 1 for sections that only point elsewhere
