"""Shared by the retrieval benchmark scripts: building the index, reading its chunks, scoring.

Every engine measured reads the same chunks: the ones our own indexer wrote into an index
database, so differences come from ranking, never from cutting.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot import config as config_module  # noqa: E402
from bot.bench import ANSWERABLE, Question, band_metrics, first_hit, load_questions  # noqa: E402
from bot.engine import Engine  # noqa: E402
from bot.index.retriever import FtsRetriever  # noqa: E402
from bot.index.store import Store  # noqa: E402
from bot.index.writer import page_text  # noqa: E402


@dataclass(frozen=True, slots=True)
class Passage:
    """What the benchmark's matching rules read from a retrieved chunk."""

    chunk_id: int
    repo: str
    path: str
    heading: str
    symbol: str


@dataclass(frozen=True, slots=True)
class StoredChunk:
    """One chunk as our indexer wrote it."""

    passage: Passage
    text: str  # heading path, then body: what every engine indexes


def build_index(repos: Path, directory: Path, mode: str = "bm25") -> tuple[Path, float]:
    """Index every repository under ``repos`` into ``directory``; return its path and seconds."""
    config = config_module.from_mapping(
        {
            "sources": {"local": [str(repos)]},
            "index": {"path": "bench.sqlite"},
            "retrieval": {"mode": mode},
        },
        env={},
        base=directory,
    )

    async def build() -> float:
        async with await Engine.open(config) as engine:
            started = time.perf_counter()
            await engine.refresh()
            return time.perf_counter() - started

    seconds = asyncio.run(build())
    return config.index_path, seconds


def index_variant(index: Path, target: Path, sql: str | None) -> Path:
    """A copy of ``index`` at ``target`` with ``sql`` applied to it (as built when ``None``).

    The index's triggers keep the two indexes of chunks in step with the change, and the index
    of whole pages is written again from the chunks left, so the copy is searched exactly as an
    index built that way would be.
    """
    db = sqlite3.connect(index)
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()
    shutil.copyfile(index, target)
    if sql:
        db = sqlite3.connect(target)
        try:
            with db:
                db.execute(sql)
                _rewrite_pages(db)
        finally:
            db.close()
    return target


def _rewrite_pages(db: sqlite3.Connection) -> None:
    """Write every page of prose again from its chunks, as the indexer would have."""
    rows = db.execute(
        "SELECT c.document_id, c.heading, c.body FROM chunks c "
        "JOIN documents d ON d.id = c.document_id WHERE d.kind <> 'code' "
        "ORDER BY c.document_id, c.ordinal"
    ).fetchall()
    pages = itertools.groupby(rows, key=lambda row: row[0])
    db.execute("DELETE FROM pages_fts")
    db.executemany(
        "INSERT INTO pages_fts (rowid, text) VALUES (?, ?)",
        [(document, page_text((h, b) for _, h, b in sections)) for document, sections in pages],
    )


def add_index_options(parser: argparse.ArgumentParser) -> None:
    """``--repos DIR`` (build an index of them) or ``--index PATH`` (measure one already built)."""
    parser.add_argument("--repos", type=Path, help="directory of git repositories to index")
    parser.add_argument("--index", type=Path, help="an index our indexer already built")


def chosen_index(
    parser: argparse.ArgumentParser, args: argparse.Namespace, directory: Path, mode: str
) -> tuple[Path, float | None]:
    """The index ``--index`` names, or one built from ``--repos`` into ``directory``.

    Also the seconds the build took, or ``None`` when the index was given.
    """
    if args.index:
        return Path(args.index), None
    if args.repos:
        return build_index(args.repos, directory, mode)
    parser.error("give --repos DIR or --index PATH")


async def measure_variants(
    index: Path, variants: dict[str, str | None], questions: Sequence[Question], *, hybrid: bool
) -> dict[str, dict[str, Any]]:
    """Every question through copies of ``index`` (``index_variant``), with BM25 and hybrid.

    Hybrid retrieval runs only when ``hybrid`` is set (it needs the embed extra).
    """
    results: dict[str, dict[str, Any]] = {}
    embedder = None
    if hybrid:
        from bot.index.embedder import packaged_embedder

        embedder = packaged_embedder()
    with tempfile.TemporaryDirectory(prefix="phpbotscout-variants-") as tmp:
        for n, (name, sql) in enumerate(variants.items()):
            path = index_variant(index, Path(tmp) / f"variant{n}.sqlite", sql)
            async with await Store.open(path) as store:
                fts = FtsRetriever(store)
                results[f"bm25, {name}"] = await measure_async(questions, fts.retrieve)
                if embedder is not None:
                    from bot.index.hybrid import HybridRetriever

                    retriever = HybridRetriever(store, embedder)
                    results[f"hybrid, {name}"] = await measure_async(questions, retriever.retrieve)
    return results


def read_chunks(index: Path) -> list[StoredChunk]:
    """Every admitted chunk in the index, in id order."""
    db = sqlite3.connect(f"file:{index}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "SELECT c.id, d.source, d.path, c.heading, c.symbol, c.heading_path, c.body "
            "FROM chunks c JOIN documents d ON d.id = c.document_id "
            "JOIN sources s ON s.name = d.source WHERE s.verdict = 'admitted' ORDER BY c.id"
        ).fetchall()
    finally:
        db.close()
    return [StoredChunk(Passage(r[0], r[1], r[2], r[3], r[4]), f"{r[5]}\n{r[6]}") for r in rows]


def measure(
    questions: Sequence[Question],
    search: Callable[[str], Sequence[Any]],
) -> dict[str, Any]:
    """Run every question through ``search`` (top passages, best first) and score it."""
    ranks: dict[str, list[int | None]] = {band: [] for band in ANSWERABLE}
    latencies = []
    for q in questions:
        started = time.perf_counter()
        results = search(q.question)
        latencies.append((time.perf_counter() - started) * 1000)
        if q.band in ranks:
            ranks[q.band].append(first_hit(results[:8], q.expected))
    return summarise(ranks, latencies)


async def measure_async(
    questions: Sequence[Question],
    search: Callable[[str], Awaitable[Sequence[Any]]],
) -> dict[str, Any]:
    """``measure`` for a coroutine search (our own retrievers)."""
    ranks: dict[str, list[int | None]] = {band: [] for band in ANSWERABLE}
    latencies = []
    for q in questions:
        started = time.perf_counter()
        results = await search(q.question)
        latencies.append((time.perf_counter() - started) * 1000)
        if q.band in ranks:
            ranks[q.band].append(first_hit(results[:8], q.expected))
    return summarise(ranks, latencies)


def summarise(ranks: dict[str, list[int | None]], latencies: list[float]) -> dict[str, Any]:
    """Per-band metrics, overall metrics and latency percentiles."""
    ordered = sorted(latencies)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))] if ordered else 0.0
    every = [r for band in ANSWERABLE for r in ranks[band]]
    return {
        "bands": {band: band_metrics(ranks[band]) for band in ANSWERABLE if ranks[band]},
        "overall": band_metrics(every),
        "latency_ms": {
            "p50": round(statistics.median(latencies), 2) if latencies else 0.0,
            "p95": round(p95, 2),
        },
    }


def table(results: dict[str, dict[str, Any]]) -> str:
    """Engines side by side: one row per engine and band."""
    lines = [
        "| engine | band | n | hit@1 | hit@3 | hit@8 | MRR@8 | p50 ms | p95 ms |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for engine, result in results.items():
        latency = result["latency_ms"]
        for band, m in [*result["bands"].items(), ("overall", result["overall"])]:
            lines.append(
                f"| {engine} | {band} | {m['n']} | {m['hit@1']:.3f} | {m['hit@3']:.3f} | "
                f"{m['hit@8']:.3f} | {m['mrr@8']:.3f} | {latency['p50']:.1f} | "
                f"{latency['p95']:.1f} |"
            )
    return "\n".join(lines)


__all__ = [
    "Passage",
    "StoredChunk",
    "add_index_options",
    "build_index",
    "chosen_index",
    "index_variant",
    "load_questions",
    "measure",
    "measure_async",
    "measure_variants",
    "read_chunks",
    "table",
]
