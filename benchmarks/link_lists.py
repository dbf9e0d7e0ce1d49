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
import sqlite3
import tempfile
from pathlib import Path

from retrieval_common import (
    add_index_options,
    chosen_index,
    load_questions,
    measure_variants,
    table,
)

from bot.corpus.linklists import LINK_LIST_WEIGHT

# Code and pointers carry weights of their own (bot.corpus), so a link list is a prose chunk
# at exactly the link-list weight.
LINK_LISTS = (
    "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id "
    f"WHERE d.kind != 'code' AND c.weight = {LINK_LIST_WEIGHT}"
)
VARIANTS = {
    f"weight {LINK_LIST_WEIGHT} (as built)": None,
    "weight 1.0 (left to the composer)": (
        f"UPDATE chunks SET weight = 1.0 WHERE id IN ({LINK_LISTS})"
    ),
    "excluded from the index": f"DELETE FROM chunks WHERE id IN ({LINK_LISTS})",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("questions", type=Path)
    add_index_options(parser)
    parser.add_argument("--hybrid", action="store_true")
    args = parser.parse_args()
    questions = load_questions(args.questions)
    with tempfile.TemporaryDirectory(prefix="phpbotscout-linklists-build-") as tmp:
        index, _ = chosen_index(parser, args, Path(tmp), "hybrid" if args.hybrid else "bm25")
        print(f"link-list sections in the index: {count_link_lists(index)}")
        print(table(asyncio.run(measure_variants(index, VARIANTS, questions, hybrid=args.hybrid))))
    return 0


def count_link_lists(index: Path) -> int:
    db = sqlite3.connect(f"file:{index}?mode=ro", uri=True)
    try:
        return int(db.execute(f"SELECT count(*) FROM ({LINK_LISTS})").fetchone()[0])
    finally:
        db.close()


if __name__ == "__main__":
    raise SystemExit(main())
