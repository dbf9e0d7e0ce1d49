"""Retrieval behind one narrow seam: a question in, scored and citable passages out.

``FtsRetriever`` ranks chunks with SQLite FTS5's BM25 over four columns: the section's own
heading, its heading path, search-only identifier words, and the body. A heading somebody
wrote is the strongest evidence, split identifiers come next (derived, so not above a
heading), then the path, then the body. FTS5's ``bm25()`` is negative with more negative
better; the score is flipped once, here, so every caller sees higher-is-better.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Protocol

from bot.corpus.urls import blob_url, local_url
from bot.errors import StoreError
from bot.index.query import build_query
from bot.index.selection import named_sources, select, without_names
from bot.index.store import Store
from bot.index.writer import PATH_SEPARATOR

PASSAGES = 8


@dataclass(frozen=True, slots=True)
class Weights:
    """BM25 column weights, in the FTS table's column order."""

    heading: float = 10.0
    heading_path: float = 2.0
    terms: float = 5.0
    body: float = 1.0


@dataclass(frozen=True, slots=True)
class Result:
    """One retrieved passage with everything needed to show and cite it."""

    chunk_id: int
    document_id: int
    score: float
    repo: str
    path: str
    kind: str
    heading: str
    heading_path: tuple[str, ...]
    anchor: str
    symbol: str
    start_line: int
    end_line: int
    url: str
    commit: str
    text: str
    indexed_at: str


class Retriever(Protocol):
    """Finds passages relevant to a question; the seam a hybrid retriever arrives through."""

    async def retrieve(self, question: str, limit: int = PASSAGES) -> list[Result]:
        """Return up to ``limit`` passages, best first, scores higher-is-better."""
        ...


_SEARCH_SQL = """
SELECT c.id, c.document_id, bm25(chunks_fts, {weights}) AS rank,
       d.source, d.path, d.kind, d.page_url, d.commit_sha, d.indexed_at, s.web_url,
       c.heading, c.heading_path, c.anchor, c.symbol, c.start_line, c.end_line, c.body
FROM chunks_fts
JOIN chunks c ON c.id = chunks_fts.rowid
JOIN documents d ON d.id = c.document_id
JOIN sources s ON s.name = d.source
WHERE chunks_fts MATCH ? AND s.verdict = 'admitted' {source_filter}
ORDER BY rank
LIMIT ?
"""


class FtsRetriever:
    """BM25 over FTS5, with the passage selection rules applied."""

    def __init__(
        self,
        store: Store,
        *,
        weights: Weights | None = None,
        candidates: int = 64,
        named_slots: int = 6,
    ) -> None:
        self._store = store
        self._weights = weights or Weights()
        self._candidates = candidates
        self._named_slots = named_slots

    async def retrieve(self, question: str, limit: int = PASSAGES) -> list[Result]:
        """Select ``limit`` passages for ``question`` (see ``bot.index.selection``)."""
        query = build_query(question)
        if not query or limit <= 0:
            return []
        names = await self._source_names()
        named = named_sources(question, names)
        named_results: list[Result] = []
        if named:
            narrowed = build_query(without_names(question, named))
            if narrowed:
                for name in named:
                    named_results += await self.search(narrowed, self._candidates, source=name)
                named_results.sort(key=lambda r: r.score, reverse=True)
        general = await self.search(query, self._candidates)
        return select(named_results, general, limit, self._named_slots)

    async def search(self, query: str, limit: int, source: str | None = None) -> list[Result]:
        """Run one FTS5 query; ``source`` restricts it to one source."""
        w = self._weights
        sql = _SEARCH_SQL.format(
            weights=f"{w.heading}, {w.heading_path}, {w.terms}, {w.body}",
            source_filter="AND d.source = ?" if source else "",
        )
        params: tuple[object, ...] = (query, source, limit) if source else (query, limit)
        try:
            async with self._store.reader.execute(sql, params) as cursor:
                rows = await cursor.fetchall()
        except sqlite3.Error as exc:
            raise StoreError(
                f"Searching the index at {self._store.path} failed ({exc}). "
                "Run 'python -m bot.cli index build' to rebuild it."
            ) from None
        return [_result(row) for row in rows]

    async def _source_names(self) -> list[str]:
        async with self._store.reader.execute(
            "SELECT name FROM sources WHERE verdict = 'admitted'"
        ) as cursor:
            return [row[0] for row in await cursor.fetchall()]


def _result(row: sqlite3.Row) -> Result:
    source, path, kind = row["source"], row["path"], row["kind"]
    start, end, anchor = row["start_line"], row["end_line"], row["anchor"]
    if row["page_url"]:
        url = row["page_url"] + (f"#{anchor}" if anchor else "")
    elif row["web_url"]:
        url = blob_url(row["web_url"], row["commit_sha"], path, start, end)
    else:
        url = local_url(source, path, start, end)
    return Result(
        chunk_id=row["id"],
        document_id=row["document_id"],
        score=-float(row["rank"]),
        repo=source,
        path=path,
        kind=kind,
        heading=row["heading"],
        heading_path=tuple(row["heading_path"].split(PATH_SEPARATOR)),
        anchor=anchor,
        symbol=row["symbol"],
        start_line=start,
        end_line=end,
        url=url,
        commit=row["commit_sha"],
        text=row["body"],
        indexed_at=row["indexed_at"],
    )
