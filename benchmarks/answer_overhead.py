"""What the answer path costs apart from the model: retrieve, prompt, checks and records.

Every question goes through ``Engine.ask`` with the real ``anthropic`` provider and SDK,
pointed at the fake Messages API on 127.0.0.1 (the test suite's fake), which answers at once
with a grounded reply citing passage 1. The overhead of one question is the whole
``Engine.ask`` wall time minus the time spent inside the SDK call (request, loopback round
trip, response parsing), which is what a real model's latency would replace.

Run from the repository root:

    python benchmarks/answer_overhead.py                      # this checkout's own docs
    python benchmarks/answer_overhead.py --repos DIR --questions QUESTIONS.jsonl

It also times each step on its own (retrieve, staleness, prompt, checks, record) for a
breakdown. Figures go to BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot import config as config_module
from bot.answer.composer import Answer, Usage
from bot.answer.grounding import judge, settle
from bot.answer.prompt import user_message
from bot.engine import Engine
from bot.index import records
from tests.fakes.anthropic_server import KEY, Behaviour, FakeAnthropic, tool_call

OWN_QUESTIONS = [
    "How does retrieval rank passages?",
    "Which configuration keys control answering?",
    "What does the bot not do?",
    "How do I build the index?",
    "What exit codes does the command line use?",
    "How are citations checked?",
    "Where are secrets read from?",
    "How often is a source refreshed?",
    "What happens when the index is empty?",
    "Which files are not indexed?",
]


def grounded_reply(body: dict[str, Any]) -> Behaviour:
    """Cite passage 1 and name, in backticks, a word passage 1 contains."""
    prompt = body["messages"][0]["content"]
    first = prompt.split("-----BEGIN PASSAGE 1-----\n", 1)[1].split("-----END PASSAGE 1-----")[0]
    body_text = first.split("\n", 2)[-1]
    words = re.findall(r"[A-Za-z_][A-Za-z0-9_.]{3,}", body_text) or ["the"]
    return tool_call(f"According to the passage, `{words[0]}` is what matters.", [1])


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def summary(values: list[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50": round(statistics.median(values), 2),
        "p95": round(percentile(values, 0.95), 2),
        "max": round(max(values), 2),
    }


def load_questions(path: Path | None) -> list[str]:
    if path is None:
        return OWN_QUESTIONS
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["question"] for line in lines if line.strip()]


async def run(repos: Path | None, questions: list[str], rounds: int) -> dict[str, Any]:
    server = FakeAnthropic().start()
    server.script(grounded_reply)
    try:
        with tempfile.TemporaryDirectory(prefix="phpbotscout-overhead-") as tmp:
            env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.url}
            if repos is None:  # the embedded default itself: its corpus, its rules
                config = config_module.load(None, {**env, "XDG_DATA_HOME": tmp}, Path(tmp))
            else:
                config = config_module.from_mapping(
                    {"sources": {"local": [str(repos)]}, "index": {"path": "overhead.sqlite"},
                     "answer": {"provider": "anthropic", "timeout": 30}},
                    env=env,
                    base=Path(tmp),
                )  # fmt: skip
            async with await Engine.open(config) as engine:
                await engine.refresh()
                for q in questions[:3]:  # warm up: SDK import, connection pool, page cache
                    await engine.ask(q)
                overhead, model, total, kinds = [], [], [], {}
                steps: dict[str, list[float]] = {
                    k: [] for k in ("retrieve", "stale", "prompt", "checks", "record")
                }
                for _ in range(rounds):
                    for q in questions:
                        t0 = time.perf_counter()
                        outcome = await engine.ask(q)
                        wall = (time.perf_counter() - t0) * 1000
                        total.append(wall)
                        model.append(outcome.compose_ms)
                        overhead.append(wall - outcome.compose_ms)
                        kinds[outcome.kind] = kinds.get(outcome.kind, 0) + 1
                        await breakdown(engine, q, steps)
    finally:
        server.stop()
    return {
        "questions": len(questions),
        "rounds": rounds,
        "outcomes": kinds,
        "overhead_ms": summary(overhead),
        "sdk_call_ms": summary(model),
        "total_ms": summary(total),
        "steps_ms": {k: summary(v) for k, v in steps.items()},
    }


async def breakdown(engine: Engine, question: str, steps: dict[str, list[float]]) -> None:
    """Time each step of the path on its own (the same calls ``Engine.ask`` makes)."""

    def lap(name: str, started: float) -> float:
        now = time.perf_counter()
        steps[name].append((now - started) * 1000)
        return now

    t = time.perf_counter()
    retrieval = await engine.retrieve(question)
    t = lap("retrieve", t)
    stale = await engine.stale_sources(retrieval.results)
    t = lap("stale", t)
    user_message(question, retrieval.results)
    t = lap("prompt", t)
    draft = Answer("See `the` passage.", (1,), False, "", Usage(1, 1), 0.0)
    judge(draft, retrieval.results)
    outcome = settle(question, retrieval.query, retrieval.results, stale, "anthropic", "m", draft)
    t = lap("checks", t)
    await records.record(engine.store, records.asked_from(outcome, "bench", draft, 0.0))
    lap("record", t)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", type=Path, help="directory of git repositories to index")
    parser.add_argument("--questions", type=Path, help="questions file (JSON Lines)")
    parser.add_argument("--rounds", type=int, default=3, help="times each question is asked")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    result = asyncio.run(run(args.repos, load_questions(args.questions), args.rounds))
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{result['questions']} questions x {result['rounds']} rounds")
    print(f"outcomes: {result['outcomes']}")
    for name in ("overhead_ms", "sdk_call_ms", "total_ms"):
        s = result[name]
        print(f"{name:<12} p50 {s['p50']:>7.2f}  p95 {s['p95']:>7.2f}  max {s['max']:>7.2f}")
    print("steps, each timed on its own:")
    for name, s in result["steps_ms"].items():
        print(f"  {name:<10} p50 {s['p50']:>7.2f}  p95 {s['p95']:>7.2f}  max {s['max']:>7.2f}")


if __name__ == "__main__":
    main()
