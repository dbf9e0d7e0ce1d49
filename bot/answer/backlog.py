"""The documentation-gap backlog: declined questions grouped by kind (pure).

The same question asked five times is one gap asked five times, so questions are merged when
they match ignoring case, spacing and trailing punctuation. Groups and the gaps in them are
newest first: what people asked most recently and could not get answered leads.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from bot.errors import UsageError

if TYPE_CHECKING:
    from bot.index.records import DeclineRow

_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Gap:
    """One question the index could not answer, however often it was asked."""

    question: str
    kind: str
    reason: str
    times: int
    last_asked: str
    first_asked: str
    question_ids: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GapGroup:
    """The gaps of one decline kind."""

    kind: str
    declines: int
    gaps: tuple[Gap, ...]


def same_question(text: str) -> str:
    """The form two askings of one question share."""
    return _SPACE.sub(" ", text).strip().rstrip("?!. ").casefold()


def group(rows: Sequence[DeclineRow]) -> list[GapGroup]:
    """Group declines (newest first, as ``records.declines`` returns them) into the backlog."""
    by_kind: dict[str, dict[str, list[DeclineRow]]] = {}
    for row in rows:
        by_kind.setdefault(row.kind, {}).setdefault(same_question(row.question), []).append(row)
    groups = []
    for kind, questions in by_kind.items():
        gaps = tuple(
            Gap(
                question=asked[0].question,
                kind=kind,
                reason=asked[0].reason,
                times=len(asked),
                last_asked=asked[0].asked_at,
                first_asked=asked[-1].asked_at,
                question_ids=tuple(r.question_id for r in asked),
            )
            for asked in questions.values()
        )
        groups.append(GapGroup(kind, sum(g.times for g in gaps), gaps))
    return groups


def parse_since(text: str) -> str:
    """``--since``: a date or an ISO 8601 time, as the UTC timestamp records are kept in.

    Raises:
        UsageError: the text is neither.
    """
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise UsageError(
            f"--since {text!r} is not a date: give one such as 2026-11-30 or 2026-11-30T09:00"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        in_utc = moment.astimezone(UTC)
    except OverflowError:
        # A time at the very edge of the calendar with an offset lands in year 0 or 10000
        # in UTC, which no datetime can hold.
        raise UsageError(
            f"--since {text!r} falls outside the calendar once converted to UTC: "
            "give a time between 0001-01-02 and 9999-12-30"
        ) from None
    return in_utc.replace(microsecond=0).isoformat()
