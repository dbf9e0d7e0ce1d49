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
from bot.engine import MAX_QUESTION_CHARS, Engine
from bot.errors import UsageError
from bot.forge.candidates import Verdict
from bot.forge.local import discover_local
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


SHAPE = 'each line is one JSON object with "id", "band", "question" and "expected"'


def load_questions(path: Path) -> list[Question]:
    """Read a questions file (JSON Lines); a malformed line is a usage error naming it.

    Raises:
        UsageError: the file cannot be read, is not UTF-8, holds no question, or a line is
            not a benchmark question (the message names the line and what is wrong with it).
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(
            f"Cannot read the questions file {path} ({exc.strerror or exc}): give the path of "
            "the JSON Lines file of questions to measure"
        ) from None
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")  # as some editors save UTF-8
    except UnicodeDecodeError as exc:
        number = data.count(b"\n", 0, exc.start) + 1
        raise UsageError(
            f"{path} line {number} is not UTF-8 text: save the questions file as UTF-8"
        ) from None
    questions = []
    # Lines end at line feeds only: a JSON string may hold U+2028 and its like as they are,
    # which str.splitlines would take for line ends.
    for number, line in enumerate(text.split("\n"), 1):
        if line.strip():
            questions.append(_question(line, f"{path} line {number}"))
    if not questions:
        raise UsageError(f"{path} holds no questions: {SHAPE}")
    return questions


def _question(line: str, where: str) -> Question:
    """One line of a questions file as a question, or a usage error saying what is wrong."""
    try:
        record = json.loads(line)
    except RecursionError:
        raise UsageError(f"{where} is nested too deeply to be a question; {SHAPE}") from None
    except json.JSONDecodeError as exc:
        # Its own line and column would count within this one line; the column is enough.
        raise UsageError(f"{where} is not JSON ({exc.msg}, column {exc.colno}); {SHAPE}") from None
    except ValueError as exc:  # valid JSON Python will not read, such as a 5,000-digit number
        raise UsageError(f"{where} cannot be read ({exc}); {SHAPE}") from None
    if not isinstance(record, dict):
        raise UsageError(f"{where} is {_described(record)}, not an object; {SHAPE}")
    missing = [key for key in ("id", "band", "question", "expected") if key not in record]
    if missing:
        raise UsageError(f"{where} has no {', '.join(missing)}; {SHAPE}")
    qid, band, question, expected = (record[k] for k in ("id", "band", "question", "expected"))
    # A number is an id as well as a string is; true or null is a mistake.
    if isinstance(qid, bool) or not isinstance(qid, str | int) or not str(qid).strip():
        raise UsageError(f'{where}: id is {_described(qid)}; give a name such as "q1"')
    if band not in BANDS:
        raise UsageError(f"{where}: band is {_described(band)}, not one of {', '.join(BANDS)}")
    if not isinstance(question, str) or not question.strip():
        raise UsageError(f"{where}: question is {_described(question)}; give the question's text")
    if len(question.strip()) > MAX_QUESTION_CHARS:
        raise UsageError(
            f"{where}: question is {len(question.strip())} characters long; "
            f"keep it to {MAX_QUESTION_CHARS} at most, as ask does"
        )
    items = _expected(expected, where)
    if band != "unanswerable" and not items:
        raise UsageError(
            f"{where}: expected is empty, so a {band} question could never be found; name the "
            'passages that answer it, or give it the band "unanswerable"'
        )
    return Question(id=str(qid), band=band, question=question, expected=items)


def _expected(expected: object, where: str) -> tuple[dict[str, str], ...]:
    what = (
        'a list of passages, each {"repo", "path", "heading"} for a section or '
        '{"repo", "path", "symbol"} for code'
    )
    if not isinstance(expected, list):
        raise UsageError(f"{where}: expected is {_described(expected)}; give {what}")
    for n, item in enumerate(expected, 1):
        if (
            not isinstance(item, dict)
            or not all(isinstance(v, str) for v in item.values())
            or not {"repo", "path"} <= item.keys()
            or not item.keys() & {"heading", "symbol"}
        ):
            raise UsageError(f"{where}: expected passage {n} is {_described(item)}; give {what}")
    return tuple(dict(item) for item in expected)


def _described(value: object) -> str:
    """A JSON value as a message names it: in the file's own notation, cut short if long."""
    try:
        shown = json.dumps(value, ensure_ascii=False)
    except RecursionError:  # read back at a depth the encoder cannot write again
        return "a deeply nested value"
    return shown if len(shown) <= 80 else shown[:77] + "…"


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
        raise UsageError(
            f"--repos {repos} is not a directory: give the directory that holds the benchmark's "
            "git repositories"
        )
    # Measured over nothing, every figure would be a zero that looks like a result.
    candidates = discover_local([repos], (), setting=None)
    if not any(c.admitted for c in candidates):
        why = "; ".join(
            c.detail if c.verdict is Verdict.UNRESOLVED else f"{c.name} {c.detail}"
            for c in candidates
        )
        raise UsageError(
            f"--repos {repos} has nothing to index: {why}. Give the directory that holds the "
            "benchmark's git repositories."
        )
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
        *(
            f"not indexed, so its questions count as misses: {name} (the warning logged for it "
            "says why)"
            for name in b["failed_sources"]
        ),
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
