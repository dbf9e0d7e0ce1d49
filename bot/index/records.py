"""The record of questions asked: outcomes, citations, votes and the gap backlog.

Every SQL statement about questions and answers lives here. Writes are single
transactions (``Store.transact()`` for a record, ``Store.write()`` for a vote), so a
question, its passages, its outcome and its citations land together or not at all. Nothing
here is ever read back into an answer: records are for operators and the gap backlog, not
memory.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.answer.composer import Answer, Usage
from bot.errors import UsageError
from bot.index.store import Store, now

if TYPE_CHECKING:
    from bot.answer.outcome import Outcome
    from bot.index.retriever import Result


@dataclass(frozen=True, slots=True)
class Asked:
    """Everything recorded about one question."""

    question: str
    query: str
    origin: str
    passages: Sequence[Result]
    outcome: str  # answered | declined | passages | error | busy
    provider: str
    model: str | None
    decline_kind: str | None = None
    reason: str | None = None
    answer: str | None = None
    draft: str | None = None
    citations: Sequence[int] = ()
    stale: Sequence[str] = ()
    usage: Usage | None = None
    compose_ms: float | None = None
    total_ms: float | None = None
    # When the question arrived, as ``now()`` gives it; the time of recording when not given.
    # The model may take as long as answer.timeout, and the backlog dates a gap by its asking.
    asked_at: str | None = None


@dataclass(frozen=True, slots=True)
class Recorded:
    """The ids a recorded question and its outcome were given."""

    question_id: int
    answer_id: int


@dataclass(frozen=True, slots=True)
class DeclineRow:
    """One declined question, as the gap backlog lists it."""

    question_id: int
    asked_at: str
    question: str
    kind: str
    reason: str


def asked_from(
    outcome: Outcome, origin: str, draft: Answer | None, total_ms: float, asked_at: str
) -> Asked:
    """What to record of an outcome; a refused draft is kept for review, never shown."""
    decline = outcome.decline
    return Asked(
        question=outcome.question,
        query=outcome.query,
        origin=origin,
        passages=outcome.passages,
        outcome=outcome.kind,
        provider=outcome.provider,
        model=outcome.model,
        decline_kind=decline.kind if decline else None,
        reason=decline.reason if decline else None,
        answer=outcome.answer,
        draft=(draft.text or None) if draft and decline else None,
        citations=[c.n for c in outcome.citations],
        stale=outcome.stale,
        usage=outcome.usage,
        compose_ms=outcome.compose_ms if draft else None,
        total_ms=total_ms,
        asked_at=asked_at,
    )


async def record(store: Store, asked: Asked) -> Recorded:
    """Write one question with its passages, outcome and citations, in one transaction."""
    return await store.transact(lambda conn: _insert(conn, asked, now()))


def _insert(conn: sqlite3.Connection, asked: Asked, at: str) -> Recorded:
    # Runs on the store's writing thread, inside the transaction: statements only.
    usage = asked.usage or Usage()
    question_id = _rowid(
        conn.execute(
            "INSERT INTO questions (asked_at, origin, question, query) VALUES (?, ?, ?, ?)",
            (asked.asked_at or at, asked.origin, asked.question, asked.query),
        ).lastrowid
    )
    conn.executemany(
        "INSERT INTO question_passages (question_id, n, chunk_id, score, source, path,"
        " heading, symbol, url, commit_sha) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [_passage_row(question_id, n, p) for n, p in enumerate(asked.passages, 1)],
    )
    answer_id = _rowid(
        conn.execute(
            "INSERT INTO answers (question_id, outcome, decline_kind, reason, answer, draft,"
            " stale, provider, model, input_tokens, output_tokens, compose_ms, total_ms,"
            " answered_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                question_id,
                asked.outcome,
                asked.decline_kind,
                asked.reason,
                asked.answer,
                asked.draft,
                json.dumps(list(asked.stale)),
                asked.provider,
                asked.model,
                usage.input_tokens,
                usage.output_tokens,
                asked.compose_ms,
                asked.total_ms,
                at,
            ),
        ).lastrowid
    )
    conn.executemany(
        "INSERT INTO citations (answer_id, question_id, n, position) VALUES (?, ?, ?, ?)",
        [(answer_id, question_id, n, i) for i, n in enumerate(asked.citations)],
    )
    return Recorded(question_id, answer_id)


def _passage_row(question_id: int, n: int, p: Result) -> tuple[object, ...]:
    return (
        question_id,
        n,
        p.chunk_id,
        p.score,
        p.repo,
        p.path,
        p.heading,
        p.symbol,
        p.url,
        p.commit,
    )


def _rowid(value: int | None) -> int:
    assert value is not None  # an INSERT into a rowid table always sets it
    return value


async def vote(store: Store, answer_id: int, voter: str, helpful: bool) -> None:
    """Record (or change) one voter's verdict on an answer."""
    try:
        async with store.write() as conn:
            await conn.execute(
                "INSERT INTO votes (answer_id, voter, helpful, voted_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (answer_id, voter) DO UPDATE"
                " SET helpful = excluded.helpful, voted_at = excluded.voted_at",
                (answer_id, voter, int(helpful), now()),
            )
    except sqlite3.IntegrityError:
        raise UsageError(f"There is no recorded answer {answer_id} to vote on.") from None


async def vote_counts(store: Store, answer_id: int) -> tuple[int, int]:
    """How many voters found an answer helpful, and how many did not."""
    row = await store.fetchone(
        "SELECT coalesce(sum(helpful), 0), count(*) - coalesce(sum(helpful), 0)"
        " FROM votes WHERE answer_id = ?",
        (answer_id,),
    )
    return (int(row[0]), int(row[1])) if row else (0, 0)


_DECLINES_SQL = """
SELECT q.id, q.asked_at, q.question, a.decline_kind, coalesce(a.reason, '')
FROM answers a JOIN questions q ON q.id = a.question_id
WHERE a.outcome = 'declined' AND q.asked_at >= ?
ORDER BY q.asked_at DESC, q.id DESC
"""


async def declines(store: Store, since: str | None = None) -> list[DeclineRow]:
    """Declined questions asked at or after ``since`` (ISO 8601), newest first."""
    rows = await store.fetchall(_DECLINES_SQL, (since or "",))
    return [DeclineRow(r[0], r[1], r[2], r[3], r[4]) for r in rows]
