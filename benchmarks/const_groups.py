"""Grouped Go constants: one chunk per constant, or one chunk per ``const ( ... )`` group?

    python benchmarks/const_groups.py QUESTIONS.jsonl --repos DIR

Builds the benchmark index once per way of cutting and asks every answerable question, as
``bench`` does. Each band is scored twice: *strict* is the benchmark's own rule (the passage's
symbol is the expected one); *lenient* also counts a passage from the expected file whose
text declares the expected name, which is the most a group chunk can earn, since a chunk
carries one symbol.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import re
import sys
import tempfile
from pathlib import Path

from bot import bench
from bot import config as config_module
from bot.corpus import code
from bot.corpus.code.go import chunk_go
from bot.engine import Engine
from bot.index.retriever import Result


def declares(result: Result, item: dict[str, str]) -> bool:
    if bench.matches(result, item):
        return True
    name = item.get("symbol")
    if not name or result.repo != item.get("repo") or result.path != item.get("path"):
        return False
    return re.search(rf"(?m)^\s*{re.escape(name)}\b", result.text) is not None


async def measure(questions: list[bench.Question], repos: Path) -> dict[str, dict[str, object]]:
    ranks: dict[str, dict[str, list[int | None]]] = {"strict": {}, "lenient": {}}
    with tempfile.TemporaryDirectory(prefix="phpbotscout-groups-") as tmp:
        config = config_module.from_mapping(
            {"sources": {"local": [str(repos)]}, "index": {"path": "groups.sqlite"}},
            env={},
            base=Path(tmp),
        )
        async with await Engine.open(config) as engine:
            await engine.refresh()
            for q in questions:
                if q.band == "unanswerable":
                    continue
                results = (await engine.retrieve(q.question)).results
                for rule, test in (("strict", bench.matches), ("lenient", declares)):
                    rank = next(
                        (
                            n
                            for n, r in enumerate(results, 1)
                            if any(test(r, item) for item in q.expected)
                        ),
                        None,
                    )
                    ranks[rule].setdefault(q.band, []).append(rank)
    return {
        rule: {band: bench.band_metrics(r) for band, r in by_band.items()}
        for rule, by_band in ranks.items()
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("--repos", type=Path, required=True)
    args = parser.parse_args(argv)
    questions = bench.load_questions(args.questions)
    print("cut      rule     band        n  hit@1  hit@3  hit@8  mrr@8")
    for mode in ("each", "block"):
        code._CHUNKERS["go"] = functools.partial(chunk_go, const_groups=mode)
        scores = asyncio.run(measure(questions, args.repos.resolve()))
        for rule, bands in scores.items():
            for band, m in bands.items():
                print(
                    f"{mode:<8} {rule:<8} {band:<10} {m['n']:>3}  {m['hit@1']:.3f}  "
                    f"{m['hit@3']:.3f}  {m['hit@8']:.3f}  {m['mrr@8']:.3f}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
