"""How fast code is cut into chunks: MB/s and chunks/s over a directory of source files.

    python benchmarks/chunking_speed.py DIR [--language go|python|rust] [--repeat N]

Every file under DIR that indexing would read as code (tests, vendored and generated files
are skipped as indexing skips them) is read into memory first, so the figure is chunking
alone, not disk reads. Files a chunker refuses (generated, unparsable) still count: refusing
them is part of the work.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from bot.corpus.chunk import Kind
from bot.corpus.code import Unchunkable, chunk_code
from bot.corpus.kinds import classify, crate_roots, language


def collect(root: Path, wanted: str) -> list[tuple[str, bytes]]:
    files = []
    paths = [p for p in sorted(root.rglob("*")) if p.is_file()]
    crates = crate_roots(p.relative_to(root).as_posix() for p in paths)
    for path in paths:
        rel = path.relative_to(root).as_posix()
        size = path.stat().st_size
        if classify(rel, size, None, other_markdown=False, crates=crates) is not Kind.CODE:
            continue
        if wanted and language(rel) != wanted:
            continue
        files.append((rel, path.read_bytes()))
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--language", default="go", choices=["go", "python", "rust", ""])
    parser.add_argument("--repeat", type=int, default=3, help="runs; the fastest is reported")
    args = parser.parse_args(argv)
    files = collect(args.directory, args.language)
    if not files:
        print(f"no {args.language or 'code'} files under {args.directory}", file=sys.stderr)
        return 2
    total = sum(len(data) for _, data in files)
    best = float("inf")
    chunks = refused = 0
    for _ in range(max(1, args.repeat)):
        chunks = refused = 0
        started = time.perf_counter()
        for rel, data in files:
            try:
                chunks += len(chunk_code(rel, data))
            except Unchunkable:
                refused += 1
        best = min(best, time.perf_counter() - started)
    print(
        f"{len(files)} files, {total / 1e6:.2f} MB, {chunks} chunks, {refused} files refused, "
        f"{best:.2f} s: {total / 1e6 / best:.2f} MB/s, {chunks / best:.0f} chunks/s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
