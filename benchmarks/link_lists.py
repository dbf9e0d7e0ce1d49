"""Lists of links ("See also", "Next up"): ranked down, left alone, or left out?

One index is built by our indexer, then copied three ways: as built (link-list sections carry
weight 0.3), with every weight back at 1.0 (leave them to the composer to discard), and with
link-list sections deleted (excluded at index time). Every question runs through each copy
with BM25 retrieval, and through hybrid retrieval too when ``--hybrid`` is given.

    python benchmarks/link_lists.py QUESTIONS.jsonl --repos DIR [--hybrid]
    python benchmarks/link_lists.py QUESTIONS.jsonl --index PATH [--hybrid]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from retrieval_common import build_index, load_questions, measure_async, table

from bot.corpus.linklists import LINK_LIST_WEIGHT
from bot.index.retriever import FtsRetriever
from bot.index.store import Store

VARIANTS = {
    f"weight {LINK_LIST_WEIGHT} (as built)": None,
    "weight 1.0 (left to the composer)": "UPDATE chunks SET weight = 1.0 WHERE weight != 1.0",
    "excluded from the index": "DELETE FROM chunks WHERE weight != 1.0",
}


def variant(index: Path, directory: Path, name: str, sql: str | None) -> Path:
    """A copy of ``index`` with ``sql`` applied to it."""
    target = directory / (name.split(" ")[0] + name.split(" ")[1] + ".sqlite")
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
        finally:
            db.close()
    return target


async def run(index: Path, questions: Any, hybrid: bool) -> dict[str, dict[str, Any]]:
    """Each variant through BM25 (and hybrid) retrieval."""
    results: dict[str, dict[str, Any]] = {}
    embedder = None
    if hybrid:
        from bot.index.embedder import packaged_embedder

        embedder = packaged_embedder()
    async with await Store.open(index) as store:
        count = await store.fetchone("SELECT count(*) FROM chunks WHERE weight != 1.0")
        print(f"link-list sections in the index: {count[0] if count else 0}")
    with tempfile.TemporaryDirectory(prefix="phpbotscout-linklists-") as tmp:
        for name, sql in VARIANTS.items():
            path = variant(index, Path(tmp), name, sql)
            async with await Store.open(path) as store:
                fts = FtsRetriever(store)
                results[f"bm25, {name}"] = await measure_async(questions, fts.retrieve)
                if embedder is not None:
                    from bot.index.hybrid import HybridRetriever

                    retriever = HybridRetriever(store, embedder)
                    results[f"hybrid, {name}"] = await measure_async(questions, retriever.retrieve)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("--repos", type=Path)
    parser.add_argument("--index", type=Path)
    parser.add_argument("--hybrid", action="store_true")
    args = parser.parse_args()
    questions = load_questions(args.questions)
    with tempfile.TemporaryDirectory(prefix="phpbotscout-linklists-build-") as tmp:
        if args.index:
            index = args.index
        elif args.repos:
            index, _ = build_index(args.repos, Path(tmp), "hybrid" if args.hybrid else "bm25")
        else:
            parser.error("give --repos DIR or --index PATH")
        print(table(asyncio.run(run(index, questions, args.hybrid))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
