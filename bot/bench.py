"""The retrieval benchmark: how often the answering passage is among the first eight.

Every repository under a directory is indexed as a local source, then each question is
asked.

Each question runs through ``Engine.retrieve``, exactly the path ``ask --retrieval-only``
takes. Metrics (hit@1/3/8, MRR@8 over answerable bands; the top score of each unanswerable
question) follow the benchmark's own definitions.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot import config as config_module
from bot.engine import Engine
from bot.errors import UsageError
from bot.index import catalog
from bot.index.embedder import packaged_embedder
from bot.index.retriever import PASSAGES, Result

BANDS = ("docs", "code", "paraphrase", "unanswerable")
ANSWERABLE = ("docs", "code", "paraphrase")


@dataclass(frozen=True, slots=True)
class Question:
    """One benchmark question and the passages that count as its answer."""

    id: str
    band: str
    question: str
    expected: tuple[dict[str, str], ...]


def load_questions(path: Path) -> list[Question]:
    """Read a questions file (JSON Lines); a malformed line is a usage error naming it."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise UsageError(f"Cannot read the questions file {path}: {exc}") from None
    questions = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            question = Question(
                id=str(record["id"]),
                band=str(record["band"]),
                question=str(record["question"]),
                expected=tuple(dict(item) for item in record["expected"]),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise UsageError(
                f"{path} line {number} is not a benchmark question ({exc!r}); each line needs "
                "id, band, question and expected"
            ) from None
        if question.band not in BANDS:
            raise UsageError(
                f"{path} line {number}: band {question.band!r} is not one of {', '.join(BANDS)}"
            )
        questions.append(question)
    return questions


def matches(result: Result, item: dict[str, str]) -> bool:
    """Whether a passage is the expected item (docs: repo+path+heading; code: +symbol)."""
    if result.repo != item.get("repo") or result.path != item.get("path"):
        return False
    if "symbol" in item:
        return result.symbol == item["symbol"]
    return result.heading == item.get("heading")


def first_hit(results: Sequence[Result], expected: Sequence[dict[str, str]]) -> int | None:
    """The 1-based rank of the first passage matching any expected item."""
    for rank, result in enumerate(results, 1):
        if any(matches(result, item) for item in expected):
            return rank
    return None


def band_metrics(ranks: Sequence[int | None]) -> dict[str, float | int]:
    """hit@1, hit@3, hit@8 and MRR@8 over one band's first-hit ranks."""
    n = len(ranks)

    def hit(k: int) -> float:
        return round(sum(1 for r in ranks if r is not None and r <= k) / n, 4) if n else 0.0

    mrr = sum(1 / r for r in ranks if r is not None and r <= PASSAGES) / n if n else 0.0
    return {"n": n, "hit@1": hit(1), "hit@3": hit(3), "hit@8": hit(8), "mrr@8": round(mrr, 4)}


def _percentile(values: Sequence[float], fraction: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def _label(result: Result) -> str:
    where = result.symbol or result.heading
    return f"{result.repo}/{result.path} :: {where}"


def _repositories_dir(repos: Path) -> Path:
    if not repos.is_dir():
        raise UsageError(f"--repos {repos} is not a directory of git repositories")
    return repos.resolve()


async def run(questions_path: Path, repos: Path, mode: str = "bm25") -> dict[str, Any]:
    """Index every repository under ``repos`` and measure retrieval on the questions.

    ``mode`` is ``retrieval.mode``: ``hybrid`` also embeds every chunk while building.
    """
    questions = await asyncio.to_thread(load_questions, questions_path)
    repos = await asyncio.to_thread(_repositories_dir, repos)
    with tempfile.TemporaryDirectory(prefix="phpbotscout-bench-") as tmp:
        config = config_module.from_mapping(
            {
                "sources": {"local": [str(repos)]},
                "index": {"path": "bench.sqlite"},
                "retrieval": {"mode": mode},
            },
            env={},
            base=Path(tmp),
        )
        # Made here, not by the engine, so that a missing model is blamed on --retrieval.
        embedder = packaged_embedder(option="--retrieval") if mode == "hybrid" else None
        async with await Engine.open(config, embedder=embedder) as engine:
            started = time.perf_counter()
            report = await engine.refresh()
            build_seconds = time.perf_counter() - started
            states = await catalog.sources(engine.store)
            documents = sum(s.documents for s in states)
            chunks = sum(s.chunks for s in states)

            ranks: dict[str, list[int | None]] = {band: [] for band in ANSWERABLE}
            latencies: list[float] = []
            misses: list[dict[str, Any]] = []
            unanswerable: list[dict[str, Any]] = []
            answerable_top: list[float] = []
            for q in questions:
                t0 = time.perf_counter()
                retrieval = await engine.retrieve(q.question)
                latencies.append((time.perf_counter() - t0) * 1000)
                results = retrieval.results
                top = round(results[0].score, 4) if results else 0.0
                if q.band == "unanswerable":
                    unanswerable.append({"id": q.id, "top_score": top})
                    continue
                answerable_top.append(top)
                rank = first_hit(results, q.expected)
                ranks[q.band].append(rank)
                if rank is None:
                    misses.append(
                        {
                            "id": q.id,
                            "band": q.band,
                            "question": q.question,
                            "expected": [dict(e) for e in q.expected],
                            "got": [_label(r) for r in results[:3]],
                        }
                    )

    every = [r for band in ANSWERABLE for r in ranks[band]]
    best_unanswerable = max((u["top_score"] for u in unanswerable), default=0.0)
    return {
        "mode": mode,
        "bands": {band: band_metrics(ranks[band]) for band in ANSWERABLE if ranks[band]},
        "overall": band_metrics(every),
        "build": {
            "documents": documents,
            "chunks": chunks,
            "seconds": round(build_seconds, 3),
            "documents_per_second": round(documents / build_seconds, 1) if build_seconds else 0,
            "chunks_per_second": round(chunks / build_seconds, 1) if build_seconds else 0,
            "failed_sources": [o.name for o in report.failed],
        },
        "latency_ms": {
            "p50": round(statistics.median(latencies), 2) if latencies else 0.0,
            "p95": round(_percentile(latencies, 0.95), 2),
        },
        "misses": misses,
        "unanswerable": unanswerable,
        "answerable_below_best_unanswerable": sum(
            1 for s in answerable_top if s < best_unanswerable
        ),
    }


def to_text(result: dict[str, Any]) -> str:
    """The benchmark result for a terminal."""
    out = ["band          n   hit@1  hit@3  hit@8  mrr@8"]
    for name, m in [*result["bands"].items(), ("overall", result["overall"])]:
        out.append(
            f"{name:<12}{m['n']:>3}   {m['hit@1']:.3f}  {m['hit@3']:.3f}  "
            f"{m['hit@8']:.3f}  {m['mrr@8']:.3f}"
        )
    b = result["build"]
    out += [
        "",
        f"build: {b['documents']} documents, {b['chunks']} chunks in {b['seconds']:.2f} s "
        f"({b['documents_per_second']:.0f} documents/s, {b['chunks_per_second']:.0f} chunks/s)",
        f"retrieval latency: p50 {result['latency_ms']['p50']:.2f} ms, "
        f"p95 {result['latency_ms']['p95']:.2f} ms",
        "",
        f"misses ({len(result['misses'])}):",
    ]
    for miss in result["misses"]:
        wanted = "; ".join(
            f"{e['repo']}/{e['path']} :: {e.get('symbol') or e.get('heading')}"
            for e in miss["expected"]
        )
        out.append(f"  {miss['id']} [{miss['band']}] {miss['question']}")
        out.append(f"      expected: {wanted}")
        for got in miss["got"]:
            out.append(f"      got:      {got}")
    out.append("")
    out.append(
        "unanswerable top scores: "
        + ", ".join(f"{u['id']}={u['top_score']:.2f}" for u in result["unanswerable"])
    )
    out.append(
        f"answerable questions scoring below the best unanswerable one: "
        f"{result['answerable_below_best_unanswerable']}"
    )
    return "\n".join(out)
