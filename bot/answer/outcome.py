"""What asking a question comes to: pure data the CLI prints and the Discord layer renders.

An ``Outcome`` is one of three things. ``answered``: prose with the passages it cites.
``declined``: one of three kinds, each with a reason, which is a result and a documentation
gap, never an error. ``passages``: no model is configured, so the passages are the result.
Something that broke is not an outcome at all; it is raised as an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from bot.answer.composer import Usage

if TYPE_CHECKING:
    from bot.index.retriever import Result

DeclineKind = Literal["nothing_matched", "composer_declined", "ungrounded"]
OutcomeKind = Literal["answered", "declined", "passages"]

NOTHING_MATCHED_REASON = "Nothing in the index matched the words of this question."


@dataclass(frozen=True, slots=True)
class Decline:
    """Why a question was not answered."""

    kind: DeclineKind
    reason: str


@dataclass(frozen=True, slots=True)
class Citation:
    """One passage an answer cites, by the number it was given to the composer."""

    n: int
    url: str
    repo: str
    path: str
    heading: str
    symbol: str


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of one question; safe to keep, pass between tasks and render anywhere.

    Attributes:
        question: the question as asked.
        query: the search query it became.
        kind: ``answered``, ``declined`` or ``passages`` (no model configured).
        answer: the answer's Markdown when answered, else ``None``.
        citations: the cited passages, in the order the answer cited them.
        decline: why it was declined, when declined, else ``None``.
        stale: names of sources behind the passages that are past their refresh interval.
        provider: the configured provider (``anthropic``, ``claude-local`` or ``none``).
        model: the model asked, or ``None`` when no model was asked.
        passages: the passages the composer received (or would have), numbered from 1.
        usage: tokens the provider reported, when a model was asked.
        compose_ms: time spent waiting for the model, 0 when none was asked.
        question_id: the recorded question's id.
        answer_id: the recorded outcome's id; feedback votes refer to it.
        unrecorded: why the outcome could not be recorded (the index busy for too long), or
            ``""``; it is shown all the same.
    """

    question: str
    query: str
    kind: OutcomeKind
    answer: str | None
    citations: tuple[Citation, ...]
    decline: Decline | None
    stale: tuple[str, ...]
    provider: str
    model: str | None
    passages: tuple[Result, ...]
    usage: Usage | None = None
    compose_ms: float = 0.0
    question_id: int | None = None
    answer_id: int | None = None
    unrecorded: str = ""


def citations_for(numbers: Sequence[int], passages: Sequence[Result]) -> tuple[Citation, ...]:
    """The citations for passage numbers already checked to lie in ``1..len(passages)``."""
    out = []
    for n in numbers:
        p = passages[n - 1]
        out.append(Citation(n, p.url, p.repo, p.path, p.heading, p.symbol))
    return tuple(out)
