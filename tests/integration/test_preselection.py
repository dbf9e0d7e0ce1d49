"""SQLite's own bm25() preselects the rows the tuned BM25 scores: the best, within a source."""

from pathlib import Path

import pytest

from bot.engine import Engine
from bot.index import retriever as retriever_module
from bot.index.retriever import FtsRetriever
from tests.answering import built_engine

FILLER = "The handbook says a great deal about other matters here. " * 6


def _sections(prefix: str, counts: list[int]) -> str:
    """One page whose sections say "retry" ``counts[i]`` times each, most times first."""
    parts = [f"# {prefix} guide\n"]
    for i, count in enumerate(counts):
        parts.append(f"## {prefix} {i}\n\n{'retry ' * count}{FILLER if count == 1 else ''}\n")
    return "\n".join(parts)


@pytest.fixture
async def engine(tmp_path: Path):
    # The strongest matches are the handbook's; the widgets' are all weaker than any of them.
    repos = {
        "handbook": {"docs/guide.md": _sections("Handbook", [6, 5, 4, 1, 1])},
        "widgets": {"docs/guide.md": _sections("Widgets", [3, 2, 1, 1])},
    }
    async with built_engine(tmp_path, repos) as opened:
        yield opened


async def _headings(engine: Engine, source: str | None = None) -> list[str]:
    retriever = engine.retriever
    assert isinstance(retriever, FtsRetriever)
    query = await retriever.query("retry")
    return [r.heading for r in await retriever.search(query, 16, source)]


async def test_only_the_best_rows_by_sqlites_bm25_are_scored(engine, monkeypatch):
    assert len(await _headings(engine)) == 9  # every matching section, when all are preselected
    monkeypatch.setattr(retriever_module, "_PRESELECTED", 2)
    assert await _headings(engine) == ["Handbook 0", "Handbook 1"]


async def test_a_named_source_preselects_its_own_best_rows(engine, monkeypatch):
    monkeypatch.setattr(retriever_module, "_PRESELECTED", 2)
    assert await _headings(engine, "widgets") == ["Widgets 0", "Widgets 1"]
