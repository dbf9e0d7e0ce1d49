"""Our retrievers beside two off-the-shelf BM25 engines, on identical chunks and questions.

The index is built once by our own indexer; ``bm25s`` and ``tantivy`` then index the very
same chunks (heading path and body, English stemming, stop words as each engine ships them)
and every engine answers every question. Printed: hit@1/3/8 and MRR@8 per band, and query
latency. bm25s and tantivy return their raw top eight; ours apply passage selection (at most
two passages per document, one per repeated answer), exactly as ``ask`` does.

    pip install -e '.[bench]'            # bm25s, PyStemmer, tantivy
    pip install -e '.[bench,embed]'      # also measure hybrid retrieval
    python benchmarks/baselines.py QUESTIONS.jsonl --repos DIR [--hybrid] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from retrieval_common import (
    Passage,
    StoredChunk,
    add_index_options,
    chosen_index,
    load_questions,
    measure,
    measure_async,
    read_chunks,
    table,
)

from bot.index.retriever import FtsRetriever
from bot.index.store import Store

_QUERY_SYNTAX = re.compile(r"[^\w\s]")


def bm25s_search(chunks: Sequence[StoredChunk]) -> tuple[Any, float]:
    """A bm25s index over the chunks (Lucene-style BM25, Snowball English stemmer)."""
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    started = time.perf_counter()
    tokens = bm25s.tokenize(
        [c.text for c in chunks], stopwords="en", stemmer=stemmer, show_progress=False
    )
    engine = bm25s.BM25()
    engine.index(tokens, show_progress=False)
    seconds = time.perf_counter() - started

    def search(question: str) -> list[Passage]:
        query = bm25s.tokenize([question], stopwords="en", stemmer=stemmer, show_progress=False)
        if not query.ids or not query.ids[0]:
            return []
        found, _ = engine.retrieve(query, k=8, show_progress=False, n_threads=1)
        return [chunks[int(i)].passage for i in found[0]]

    return search, seconds


def tantivy_search(chunks: Sequence[StoredChunk]) -> tuple[Any, float]:
    """A tantivy index over the chunks (BM25, its ``en_stem`` tokenizer)."""
    import tantivy

    started = time.perf_counter()
    builder = tantivy.SchemaBuilder()
    builder.add_integer_field("n", stored=True, indexed=False)
    builder.add_text_field("text", stored=False, tokenizer_name="en_stem")
    index = tantivy.Index(builder.build())
    writer = index.writer(heap_size=100_000_000, num_threads=1)
    for n, chunk in enumerate(chunks):
        writer.add_document(tantivy.Document(n=n, text=chunk.text))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    searcher = index.searcher()
    seconds = time.perf_counter() - started

    def search(question: str) -> list[Passage]:
        # Query syntax characters become spaces: the question is words, not a query.
        text = _QUERY_SYNTAX.sub(" ", question).strip()
        if not text:
            return []
        query, _errors = index.parse_query_lenient(text, ["text"])
        hits = searcher.search(query, 8).hits
        return [chunks[searcher.doc(address)["n"][0]].passage for _, address in hits]

    return search, seconds


async def ours(index: Path, questions: Any, hybrid: bool) -> dict[str, dict[str, Any]]:
    """Our BM25, our lexical half with symbol routes, and (optionally) hybrid retrieval."""
    from bot.index.hybrid import HybridRetriever

    results: dict[str, dict[str, Any]] = {}
    async with await Store.open(index) as store:
        fts = FtsRetriever(store)
        await fts.retrieve("warm up")
        results["ours bm25"] = await measure_async(questions, fts.retrieve)
        lexical = HybridRetriever(store, None)
        await lexical.retrieve("warm up")
        results["ours bm25 + symbol routes"] = await measure_async(questions, lexical.retrieve)
        if hybrid:
            from bot.index.embedder import packaged_embedder

            retriever = HybridRetriever(store, packaged_embedder())
            await retriever.retrieve("warm up")
            results["ours hybrid"] = await measure_async(questions, retriever.retrieve)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("questions", type=Path)
    add_index_options(parser)
    parser.add_argument("--hybrid", action="store_true", help="also measure hybrid retrieval")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    questions = load_questions(args.questions)
    with tempfile.TemporaryDirectory(prefix="phpbotscout-baselines-") as tmp:
        mode = "hybrid" if args.hybrid else "bm25"
        index, seconds = chosen_index(parser, args, Path(tmp), mode)
        build: dict[str, float] = {} if seconds is None else {f"ours ({mode})": seconds}
        chunks = read_chunks(index)
        results = asyncio.run(ours(index, questions, args.hybrid))
        for name, make in (("bm25s", bm25s_search), ("tantivy", tantivy_search)):
            search, build[name] = make(chunks)
            search("warm up")
            results[name] = measure(questions, search)
    if args.json:
        print(json.dumps({"chunks": len(chunks), "build_seconds": build, "engines": results}))
        return 0
    print(
        f"{len(chunks)} chunks; index build seconds: "
        + ", ".join(f"{name} {seconds:.2f}" for name, seconds in build.items())
    )
    print(table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
