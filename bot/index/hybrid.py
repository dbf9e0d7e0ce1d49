"""Hybrid retrieval: the lexical half, the vector half, fused on rank, named symbols pinned.

For one question:

1. BM25 (``FtsRetriever.search``) ranks chunks by the question's words;
2. the symbol table ranks code by how much of a symbol's own words the question uses;
3. with an embedder, the question's vector ranks every chunk answered from by cosine;
4. the rankings are fused by reciprocal rank (``bot.index.fusion``);
5. the chunk declaring a symbol the question names (exactly, in another casing, or
   misspelled) is pinned first, since "this is the name you typed" is not a score that
   fusion could weigh fairly;
6. the passages are chosen by the usual rules (``bot.index.selection``), so a named source
   still gets its own slots, searched without its name.

Without an embedder only the lexical half runs (BM25 plus symbol routes). The vectors and
the symbol table are read once and kept in memory until the index changes (a counter that
triggers bump on every chunk write).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from bot.index.catalog import SERVED_CHUNKS, SERVED_SOURCES_SQL
from bot.index.embedder import Embedder
from bot.index.fusion import fuse
from bot.index.query import build_query
from bot.index.retriever import PASSAGES, FtsRetriever, Result
from bot.index.selection import NAMED_SLOTS, named_sources, select, without_names
from bot.index.store import Store
from bot.index.symbols import Declared, SymbolTable, WrittenNames, pins
from bot.index.vectors import Matrix, nearest, stack

log = logging.getLogger(__name__)

DEPTH = 64  # how far down each ranking is read before fusing
MAX_PINNED = 2  # named symbols pinned first; the rest of the slots stay with the fused ranking


@dataclass(frozen=True, slots=True)
class FusionWeights:
    """How much each ranking counts in the fusion, and the fusion's ``k``."""

    lexical: float = 1.0
    vector: float = 1.0
    described: float = 0.5  # the symbol-words ranking is a hint, not a peer of the other two
    # Small: the first places of each ranking dominate. With the customary 60, a chunk ranked
    # middling by both halves beat BM25's clear first place, and docs hit@8 fell below BM25
    # alone (0.800 against 0.833); anywhere from 3 to 10 held docs at 0.867 (BENCHMARKS.md).
    k: int = 10


@dataclass(frozen=True, slots=True)
class _Snapshot:
    """The in-memory side of the index at one generation."""

    generation: int
    table: SymbolTable
    chunk_source: dict[int, str]
    vector_ids: npt.NDArray[np.int64]
    vector_sources: npt.NDArray[np.str_]
    matrix: Matrix


class HybridRetriever:
    """BM25, symbol routes and (given an embedder) cosine similarity, fused."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder | None = None,
        *,
        lexical: FtsRetriever | None = None,
        named_slots: int = NAMED_SLOTS,
        depth: int = DEPTH,
        weights: FusionWeights | None = None,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._fts = lexical or FtsRetriever(store)
        self._named_slots = named_slots
        self._depth = depth
        self._weights = weights or FusionWeights()
        self._snapshot: _Snapshot | None = None
        self._loading = asyncio.Lock()

    async def retrieve(self, question: str, limit: int = PASSAGES) -> list[Result]:
        """Select ``limit`` passages for ``question``, best first, higher score better."""
        unknown = await self._fts.unknown_identifiers(question)
        query = build_query(question, unknown)
        if not query or limit <= 0:
            return []
        # The question is embedded first, on the event loop's own thread: about 20 ms of CPU
        # that holds up other coroutines for that long. Measured on two cores, running it
        # beside the searches slowed both, and handing it to a worker thread (even always the
        # same one) added 8 to 15 ms at the median and more at p95, for no gain in throughput.
        vector = self._embed(question)
        snap = await self._current()
        names = await self._source_names()
        named = named_sources(question, names)
        narrowed = build_query(without_names(question, named), unknown) if named else ""
        sources = [n for n in named if narrowed]
        lexical = await asyncio.gather(
            *(self._fts.search(narrowed, self._depth, source=n) for n in sources),
            self._fts.search(query, self._depth),
        )
        *per_source, general = lexical
        described = snap.table.described(question, self._depth)

        def ranking(results: Sequence[Result], source: str | None) -> list[tuple[int, float]]:
            w = self._weights
            rankings: list[Sequence[int]] = [[r.chunk_id for r in results]]
            weights = [w.lexical]
            if described and w.described:
                rankings.append(
                    [c for c in described if source is None or snap.chunk_source.get(c) == source]
                )
                weights.append(w.described)
            if vector is not None and w.vector:
                rankings.append(self._nearest(snap, vector, source))
                weights.append(w.vector)
            return fuse(rankings, weights, w.k)[: self._depth]

        fused_general = ranking(general, None)
        fused_named = sorted(
            (pair for n, res in zip(sources, per_source, strict=True) for pair in ranking(res, n)),
            key=lambda pair: -pair[1],
        )
        prefer = {r.chunk_id: rank for rank, r in enumerate(general)}
        pinned = pins(snap.table.named(question), prefer, MAX_PINNED)

        # Lexical results are passages already; only chunks that the other rankings brought
        # in are read, and only as far down as selection can plausibly reach.
        reach = max(4 * limit, 32)
        known = {r.chunk_id: r for results in lexical for r in results}
        wanted = [
            *pinned,
            *(c for c, _ in fused_named[:reach]),
            *(c for c, _ in fused_general[:reach]),
        ]
        passages = known | await self._fts.passages(
            [c for c in dict.fromkeys(wanted) if c not in known]
        )
        top = max((s for _, s in fused_general), default=0.0)
        pinned_results = [
            dataclasses.replace(passages[c], score=top + 1.0 / (i + 1))
            for i, c in enumerate(pinned)
            if c in passages
        ]

        def results(pairs: list[tuple[int, float]]) -> list[Result]:
            return [
                dataclasses.replace(passages[c], score=s) for c, s in pairs[:reach] if c in passages
            ]

        return select(
            [*pinned_results, *results(fused_named)],
            results(fused_general),
            limit,
            self._named_slots,
            written=WrittenNames.of(question),
        )

    async def query(self, question: str) -> str:
        """The full-text query of the lexical half."""
        return await self._fts.query(question)

    def _embed(self, question: str) -> Matrix | None:
        if self._embedder is None:
            return None
        try:
            return self._embedder.embed([question])
        except Exception as exc:  # third-party model code: whatever it raises, words still work
            log.warning("embedding the question failed, answering from words alone: %s", exc)
            return None

    def _nearest(self, snap: _Snapshot, vector: Matrix, source: str | None) -> list[int]:
        if snap.matrix.shape[0] == 0 or vector.shape[-1] != snap.matrix.shape[1]:
            return []  # nothing embedded yet, or by another model: the lexical half answers
        mask = snap.vector_sources == source if source is not None else None
        rows = nearest(snap.matrix, vector, self._depth, mask)
        return [int(snap.vector_ids[r]) for r in rows]

    async def _current(self) -> _Snapshot:
        """The symbol table and vectors of the index as it is now, reloaded when it changed."""
        row = await self._store.fetchone("SELECT generation FROM chunk_generation WHERE id = 1")
        generation = int(row[0]) if row else 0
        snap = self._snapshot
        if snap is not None and snap.generation == generation:
            return snap
        async with self._loading:
            snap = self._snapshot
            if snap is None or snap.generation != generation:
                snap = await self._load(generation)
                self._snapshot = snap
            return snap

    async def _load(self, generation: int) -> _Snapshot:
        # The chunks the lexical half answers from (``SERVED_CHUNKS``), so the three rankings
        # see the same ones.
        rows = await self._store.fetchall(
            "SELECT c.id, d.source, c.symbol, d.path " + SERVED_CHUNKS + " AND c.symbol != ''"
        )
        table = SymbolTable(Declared(r[0], r[1], r[2], r[3]) for r in rows)
        chunk_source = {r[0]: r[1] for r in rows}
        ids = np.zeros(0, dtype=np.int64)
        sources = np.zeros(0, dtype=np.str_)
        matrix = np.zeros((0, 0), dtype=np.float32)
        model = await self._store.fetchone("SELECT dimensions FROM embedding_model WHERE id = 1")
        if self._embedder is not None and model is not None:
            vectors = await self._store.fetchall(
                "SELECT c.id, d.source, c.vector "
                + SERVED_CHUNKS
                + " AND c.vector IS NOT NULL ORDER BY c.id"
            )
            width = int(model[0])
            blobs = [r[2] for r in vectors if len(r[2]) == width * 4]
            kept = [r for r in vectors if len(r[2]) == width * 4]
            ids = np.array([r[0] for r in kept], dtype=np.int64)
            sources = np.array([r[1] for r in kept], dtype=np.str_)
            matrix = await asyncio.to_thread(stack, blobs, width)
        return _Snapshot(generation, table, chunk_source, ids, sources, matrix)

    async def _source_names(self) -> list[str]:
        rows = await self._store.fetchall(SERVED_SOURCES_SQL)
        return [row[0] for row in rows]
