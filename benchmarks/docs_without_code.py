"""What code passages cost the docs band: one index ranked as built, and with its code removed.

One index is built by our indexer, then copied three times: as built; with every code passage
deleted, so the copy's term statistics are its markdown's alone, as in an index of markdown
only; and with every code passage weighted 0, so the statistics stay those of the served index
but no code passage can take a place from prose (what a ranking that always knew a question
wants prose could do at best). Every question runs through each copy with today's BM25
ranking; the docs band's differences are what competition from code costs, with the ranking
held fixed.

    python benchmarks/docs_without_code.py QUESTIONS.jsonl --repos DIR
    python benchmarks/docs_without_code.py QUESTIONS.jsonl --index PATH
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from retrieval_common import (
    add_index_options,
    chosen_index,
    load_questions,
    measure_variants,
    table,
)

VARIANTS = {
    "markdown and code (as served)": None,
    "markdown only": (
        "DELETE FROM chunks WHERE document_id IN (SELECT id FROM documents WHERE kind = 'code')"
    ),
    "markdown and code, code never ranked above prose": (
        "UPDATE chunks SET weight = 0 "
        "WHERE document_id IN (SELECT id FROM documents WHERE kind = 'code')"
    ),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("questions", type=Path)
    add_index_options(parser)
    args = parser.parse_args()
    questions = load_questions(args.questions)
    with tempfile.TemporaryDirectory(prefix="phpbotscout-nocode-build-") as tmp:
        index, _ = chosen_index(parser, args, Path(tmp), "bm25")
        print(table(asyncio.run(measure_variants(index, VARIANTS, questions, hybrid=False))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
