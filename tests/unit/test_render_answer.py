"""The ``ask --json`` object follows the documented contract exactly."""

from dataclasses import replace

from bot import render
from bot.answer.composer import Usage
from bot.answer.outcome import Citation, Decline, Outcome
from bot.index.retriever import Result

CONTRACT = {"question", "outcome", "answer", "citations", "decline", "stale", "provider",
            "model", "passages"}  # fmt: skip


def passage(n: int) -> Result:
    return Result(
        chunk_id=n, document_id=1, score=3.5, repo="widgets", path="docs/guide.md", kind="doc",
        heading=f"Part {n}", heading_path=("Guide", f"Part {n}"), anchor=f"part-{n}", symbol="",
        start_line=1, end_line=5, url=f"https://widgets.example/guide/#part-{n}", commit="abc",
        text="Body.", indexed_at="2026-11-30T00:00:00+00:00",
    )  # fmt: skip


PASSAGES = (passage(1), passage(2))
BASE = Outcome("Q?", '"q"', "passages", None, (), None, ("widgets",), "anthropic",
               "claude-haiku-4-5", PASSAGES)  # fmt: skip


def test_an_answer_has_exactly_the_contract_keys():
    cited = (Citation(2, PASSAGES[1].url, "widgets", "docs/guide.md", "Part 2", ""),)
    outcome = replace(BASE, kind="answered", answer="Do it.", citations=cited, usage=Usage(1, 2))
    data = render.outcome_json(outcome)
    assert set(data) == CONTRACT
    assert data["citations"] == [
        {"n": 2, "url": PASSAGES[1].url, "repo": "widgets", "path": "docs/guide.md",
         "heading": "Part 2", "symbol": ""}
    ]  # fmt: skip
    assert data["decline"] is None and data["stale"] == ["widgets"]
    assert [p["rank"] for p in data["passages"]] == [1, 2]
    text = render.outcome_text(outcome)
    assert "[2] widgets docs/guide.md — Part 2" in text
    assert "Caveat: widgets has not been refreshed" in text


def test_a_decline_has_exactly_the_contract_keys():
    outcome = replace(BASE, kind="declined", decline=Decline("ungrounded", "Cited nothing."))
    data = render.outcome_json(outcome)
    assert set(data) == CONTRACT
    assert data["decline"] == {"kind": "ungrounded", "reason": "Cited nothing."}
    assert data["answer"] is None and data["citations"] == []


def test_passages_only_adds_a_notice():
    data = render.outcome_json(BASE)
    assert set(data) == CONTRACT | {"notice"}
    assert data["outcome"] == "passages" and data["answer"] is None
