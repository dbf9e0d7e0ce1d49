"""Retrieval behind one narrow seam: a question in, scored and citable passages out.

``FtsRetriever`` ranks chunks with BM25 in two SQLite FTS5 indexes: headings (the section's
own heading, and its heading path) and bodies (search-only identifier words, and the text),
each with BM25 parameters of its own (``bot.index.bm25``). Each is normalised against its own
kind, so a long section whose heading matches is not penalised for its length, and the two
scores are added. Within them, a heading somebody wrote outweighs its ancestors, and split
identifiers outweigh body text; no one column dominates (docs/retrieval.md, "Scoring: BM25
over headings and bodies"). A third index holds whole pages of prose: how well a section's
page matches orders sections of prose among themselves (``bot.index.page_evidence``). BM25
in FTS5 is negative with more negative better; scores are flipped once, here, so every
caller sees higher-is-better.
"""

from __future__ import annotations

import asyncio
import sqlite3
from dataclasses import dataclass
from typing import Protocol

from bot.corpus.chunk import Kind
from bot.corpus.code.source import CODE_WEIGHT
from bot.corpus.urls import blob_url, local_url
from bot.index.bm25 import FUNCTION, Bm25
from bot.index.catalog import CHUNK_JOINS, SERVED, SERVED_CHUNKS, SERVED_SOURCES_SQL
from bot.index.named_sections import NAMED_SECTION, names_section, said_words
from bot.index.page_evidence import order_by_page
from bot.index.query import build_query, content_terms, identifiers, query_terms
from bot.index.selection import NAMED_SLOTS, named_sources, select, text_key, without_names
from bot.index.store import Store
from bot.index.symbols import NONE_WRITTEN, WrittenNames, in_named_package, is_named
from bot.index.writer import PATH_SEPARATOR

PASSAGES = 8
# Chosen on the question sets read for misses, then checked on the blind ones (BENCHMARKS.md).
HEADINGS_BM25 = Bm25(k1=0.6, b=1.0)
BODIES_BM25 = Bm25(k1=1.5, b=0.5)


@dataclass(frozen=True, slots=True)
class Weights:
    """BM25's column weights and parameters in each index, and the headings index's share.

    Headings are short and a word seldom repeats in one, so a second occurrence adds little
    (k1 0.6) and a long heading path is marked down in full (b 1.0). Bodies are long and vary
    in length: a word said again is evidence (k1 1.5), and a long section, often the one that
    answers, is marked down at half strength, less than FTS5's own 0.75 (docs/retrieval.md).
    """

    heading: float = 3.0
    heading_terms: float = 3.0
    heading_path: float = 2.0
    terms: float = 5.0
    body: float = 1.0
    headings_share: float = 1.0
    headings_bm25: Bm25 = HEADINGS_BM25
    bodies_bm25: Bm25 = BODIES_BM25


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

    @property
    def text_key(self) -> str:
        """The key of the passage's normalised text, for spotting the same text twice."""
        return text_key(self.text)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A ranked chunk before selection: only what the selection rules look at."""

    chunk_id: int
    document_id: int
    score: float
    repo: str
    path: str
    symbol: str
    heading: str
    text: str  # its words tell one section kept in two versions (``same_section``)
    text_key: str  # for spotting the same text twice without comparing texts


class Retriever(Protocol):
    """Finds passages relevant to a question; the seam a hybrid retriever arrives through."""

    async def retrieve(self, question: str, limit: int = PASSAGES) -> list[Result]:
        """Return up to ``limit`` passages, best first, scores higher-is-better."""
        ...

    async def query(self, question: str) -> str:
        """The full-text query ``question`` is searched with (shown, never executed by callers)."""
        ...


# SQLite's own bm25() picks the rows the tuned one scores: it runs in C, the tuned one in Python,
# once per row. Over the 256 benchmark questions the best 512 by bm25() held every passage the
# tuned scores choose (the best 256 missed one). Preselected, a search took p50 16 ms and p95
# 26 ms where scoring every match took 32 and 72 (BENCHMARKS.md, "BM25's two parameters, per
# index"). The unary plus keeps FTS5 from taking "rowid IN" as a lookup per rowid.
_PRESELECTED = 512
_RANK_SQL = """
WITH preselected(id) AS MATERIALIZED (
    SELECT {table}.rowid FROM {table} {source_join}
    WHERE {table} MATCH :query {source_filter}
    ORDER BY bm25({table}, {weights}) LIMIT :preselected
)
SELECT rowid, {function}({table}, {k1}, {b}, {weights}) FROM {table}
WHERE {table} MATCH :query AND +rowid IN (SELECT id FROM preselected) ORDER BY 2 LIMIT :depth
"""
# A join, not "rowid IN (subquery)": FTS5 would run the subquery for every match.
_SOURCE_JOIN = "JOIN chunks c ON c.id = {table}.rowid JOIN documents d ON d.id = c.document_id"

# Whether the index holds a word as written: in either index, any column.
_KNOWN_SQL = """
SELECT EXISTS (SELECT 1 FROM chunks_head_fts WHERE chunks_head_fts MATCH ?1)
    OR EXISTS (SELECT 1 FROM chunks_body_fts WHERE chunks_body_fts MATCH ?1)
"""

# How much higher a symbol named with its package ranks (`stdlib.Merge`). Measured over the five
# benchmark sets (BENCHMARKS.md, "A symbol named with its package"): 1.5 moves four answers up
# and one down; 2 moves a second docs answer down behind a symbol the question named in passing.
PACKAGE_NAMED = 1.5

# Each candidate with how well its page matches, when it is prose (no page of code is
# indexed): BM25 over the whole page. Read in the same trip as the candidates, since under
# load every trip to a reading thread waits its turn; materialised, each page is scored once,
# and only the candidates' pages are. ``opening`` tells a part of a page's opening section: the
# first passage, and any cut from the same section when it was too long for one. A code file
# has no opening that matters (``_named`` passes code by), so its passages skip the lookup.
_CANDIDATES_SQL = (
    """
WITH pages(id, score) AS MATERIALIZED (
    SELECT rowid, bm25(pages_fts) FROM pages_fts
    WHERE pages_fts MATCH ? AND +rowid IN (SELECT document_id FROM chunks WHERE id IN ({ids}))
)
SELECT c.id, c.document_id, d.source, d.kind, c.symbol, c.weight, c.text_key, d.path,
       c.heading, p.score AS page,
       CASE WHEN c.ordinal = 0 THEN 1 WHEN d.kind = '"""  # noqa: S608 (constants only)
    + Kind.CODE
    + """' THEN 0 ELSE c.heading_path = (
           SELECT o.heading_path FROM chunks o WHERE o.document_id = c.document_id AND o.ordinal = 0
       ) END AS opening """
    + CHUNK_JOINS
    + " LEFT JOIN pages p ON p.id = c.document_id WHERE "
    + SERVED
    + " AND c.id IN ({ids})"
)
# Read for the candidates kept only, of the hundreds scored: selection compares their words.
_TEXTS_SQL = "SELECT id, body FROM chunks WHERE id IN ({ids})"

_ROWS_SQL = (
    "SELECT c.id, c.document_id, d.source, d.path, d.kind, d.page_url, d.commit_sha, "
    "d.indexed_at, s.web_url, c.heading, c.heading_path, c.anchor, c.symbol, c.start_line, "
    "c.end_line, c.body " + SERVED_CHUNKS + " AND c.id IN ({ids})"
)


class FtsRetriever:
    """BM25 over FTS5, with the passage selection rules applied."""

    def __init__(
        self,
        store: Store,
        *,
        weights: Weights | None = None,
        candidates: int = 32,  # per search: ample for 8 slots after the caps and collapses
        named_slots: int = NAMED_SLOTS,
    ) -> None:
        self._store = store
        self._weights = weights or Weights()
        self._candidates_wanted = candidates
        self._named_slots = named_slots

    async def retrieve(self, question: str, limit: int = PASSAGES) -> list[Result]:
        """Select ``limit`` passages for ``question`` (see ``bot.index.selection``)."""
        unknown = await self.unknown_identifiers(question)
        query = build_query(question, unknown)
        if not query or limit <= 0:
            return []
        names = await self._source_names()
        named = named_sources(question, names)
        rest = without_names(question, named)
        # A question only about the source ("what is cobra?") keeps its name: without it, only
        # function words would be left to search the source with.
        narrowed = build_query(rest if content_terms(rest) else question, unknown) if named else ""
        wanted = self._candidates_wanted
        written = WrittenNames.of(question)
        said = said_words(question)
        searches = [self._candidates(narrowed, wanted, n, written, said) for n in named if narrowed]
        *per_source, general = await asyncio.gather(
            *searches, self._candidates(query, wanted, written=written, said=said)
        )
        named_candidates = sorted(
            (c for found in per_source for c in found), key=lambda c: c.score, reverse=True
        )
        chosen = select(named_candidates, general, limit, self._named_slots, written=written)
        return await self._results(chosen)

    async def query(self, question: str) -> str:
        """The full-text query ``question`` is searched with."""
        return build_query(question, await self.unknown_identifiers(question))

    async def unknown_identifiers(self, question: str) -> list[str]:
        """The question's compound identifiers that the index does not hold as written.

        Usually a misspelling (``updateWithDetecton``); those are searched by their words one
        by one, where a known identifier's words are searched together (``bot.index.query``).
        """
        searched = set(query_terms(question))  # a pasted stack trace asks at most this many
        unknown = []
        for name in (n for n in identifiers(question) if n in searched):
            row = await self._store.fetchone(_KNOWN_SQL, (f'"{name}"',))
            if row is None or not row[0]:
                unknown.append(name)
        return unknown

    async def search(self, query: str, limit: int, source: str | None = None) -> list[Result]:
        """Run one query against the passages' two indexes, their pages ordering prose.

        ``source`` restricts it to one source.
        """
        return await self._results(await self._candidates(query, limit, source))

    async def _candidates(
        self,
        query: str,
        limit: int,
        source: str | None = None,
        written: WrittenNames = NONE_WRITTEN,
        said: tuple[str, ...] = (),
    ) -> list[Candidate]:
        """The best ``limit`` chunks for ``query``, carrying only what selection needs.

        ``written`` holds the names the question writes as code: the symbols they name are not
        marked down, and one named with its package ranks higher (``_weight``). ``said`` holds
        the question's ``said_words``: a section it names by its heading ranks higher.
        """
        w = self._weights
        # Each index is asked for four times ``limit`` rows: a chunk strong in one index and
        # middling in the other must still be there to have its two scores added. Measured on
        # the benchmark corpus, 128 rows rank exactly as 256 did, in two thirds of the time.
        depth = max(limit * 4, 128)
        heads, bodies = await asyncio.gather(
            self._rank(
                "chunks_head_fts",
                w.headings_bm25,
                f"{w.heading}, {w.heading_terms}, {w.heading_path}",
                query,
                depth,
                source,
            ),
            self._rank(
                "chunks_body_fts", w.bodies_bm25, f"{w.terms}, {w.body}", query, depth, source
            ),
        )
        scores = dict.fromkeys(heads.keys() | bodies.keys(), 0.0)
        for chunk_id, score in heads.items():
            scores[chunk_id] += w.headings_share * score
        for chunk_id, score in bodies.items():
            scores[chunk_id] += score
        rows = await self._fetch(_CANDIDATES_SQL, list(scores), before=(query,))
        # The ranking weight (lists of links, code, deprecation) applies before the cut, to a
        # section's page's evidence as to its own: a list of links on a page about the
        # question is still a list of links.
        weights = {r["id"]: _weight(r, written) * _named(r, said) for r in rows}
        weighted = {r["id"]: scores[r["id"]] * weights[r["id"]] for r in rows}
        ranked = sorted(rows, key=lambda r: (-weighted[r["id"]], r["id"]))
        ordered = order_by_page(
            [(r, weighted[r["id"]]) for r in ranked],
            [_page_evidence(r, weights[r["id"]]) for r in ranked],
        )[:limit]
        kept = await self._fetch(_TEXTS_SQL, [r["id"] for r, _ in ordered])
        texts = {t["id"]: t["body"] for t in kept}
        return [
            Candidate(
                r["id"],
                r["document_id"],
                score,
                r["source"],
                r["path"],
                r["symbol"],
                r["heading"],
                texts.get(r["id"], ""),
                r["text_key"] or f"#{r['id']}",
            )
            for r, score in ordered
        ]

    async def _results(self, chosen: list[Candidate]) -> list[Result]:
        """The full, citable passages of the chosen candidates, in their order."""
        rows = await self._fetch(_ROWS_SQL, [c.chunk_id for c in chosen])
        by_id = {row["id"]: row for row in rows}
        return [_result(by_id[c.chunk_id], c.score) for c in chosen if c.chunk_id in by_id]

    async def _rank(
        self, table: str, bm25: Bm25, weights: str, query: str, depth: int, source: str | None
    ) -> dict[int, float]:
        sql = _RANK_SQL.format(
            function=FUNCTION,
            table=table,
            k1=float(bm25.k1),
            b=float(bm25.b),
            weights=weights,
            source_join=_SOURCE_JOIN.format(table=table) if source else "",
            source_filter="AND d.source = :source" if source else "",
        )
        params = {"query": query, "source": source, "depth": depth, "preselected": _PRESELECTED}
        return {int(r[0]): -float(r[1]) for r in await self._store.rank(sql, params)}

    async def passages(self, ids: list[int]) -> dict[int, Result]:
        """The admitted chunks among ``ids`` as passages scored 0, by chunk id.

        For retrievers composed on top of this one, which rank chunks by other means.
        """
        return {row["id"]: _result(row, 0.0) for row in await self._fetch(_ROWS_SQL, ids)}

    async def _fetch(
        self, sql: str, ids: list[int], before: tuple[object, ...] = ()
    ) -> list[sqlite3.Row]:
        """Rows of ``sql`` whose parameters are ``before``, then ``ids`` at each ``{ids}``."""
        if not ids:
            return []
        params = (*before, *ids * sql.count("{ids}"))
        return await self._store.fetchall(sql.format(ids=_marks(ids)), params)

    async def _source_names(self) -> list[str]:
        rows = await self._store.fetchall(SERVED_SOURCES_SQL)
        return [row[0] for row in rows]


def _weight(row: sqlite3.Row, written: WrittenNames) -> float:
    """A candidate's ranking weight, as the names the question writes as code change it.

    Deprecated and private symbols rank at half so that a question finds what replaced them
    or the public option first; one that asks about `grpc.WithTimeout` by name wants it, and
    gets code's usual weight. One named with the package that declares it (`stdlib.Merge`,
    `click.Choice`) is what the question is about more surely still, and ranks higher.
    """
    symbol, weight, path, source = row["symbol"], row["weight"], row["path"], row["source"]
    if is_named(symbol, written.keys):
        weight = max(weight, CODE_WEIGHT)
    if in_named_package(symbol, path, source, written.qualified):
        weight *= PACKAGE_NAMED
    return float(weight)


def _named(row: sqlite3.Row, said: tuple[str, ...]) -> float:
    """``NAMED_SECTION`` for a section of prose the question names by its heading, else 1.

    A page's opening section is not: it usually sits under the page's title, and the page's
    evidence already counts how well the whole page matches.
    """
    if row["kind"] == Kind.CODE or row["opening"] or not said:
        return 1.0
    return NAMED_SECTION if names_section(row["heading"], said) else 1.0


def _page_evidence(row: sqlite3.Row, weight: float) -> float | None:
    """How well a candidate's page matches, as its weight counts it; ``None`` for code.

    FTS5's BM25 is lower for a better match, and a page matching none of the words is absent.
    """
    if row["kind"] == Kind.CODE:
        return None
    return -(row["page"] or 0.0) * weight


def _marks(ids: list[int]) -> str:
    return ", ".join("?" * len(ids))


def _result(row: sqlite3.Row, score: float) -> Result:
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
        score=score,
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
