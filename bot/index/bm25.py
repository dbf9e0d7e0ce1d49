"""BM25 with its two parameters chosen per index, as an FTS5 auxiliary function.

FTS5's own ``bm25()`` fixes k1 (how soon repeating a word stops adding to a score) at 1.2 and
b (how much a long passage is marked down for its length) at 0.75. The headings and the bodies
indexes want different values (docs/retrieval.md, "Scoring: BM25 over headings and bodies"),
so ``tuned_bm25`` computes the same formula with both given by the query: with 1.2 and 0.75 it
returns exactly what ``bm25()`` does. Like ``bm25()`` it is negative, more negative better.

The formula is pure (``idf``, ``score``); ``tuned_bm25`` only reads FTS5's counts for it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from apsw import FTS5ExtensionApi, SQLiteValue

FUNCTION = "tuned_bm25"  # the SQL name: tuned_bm25(table, k1, b, column weights...)

# FTS5 floors an inverse document frequency at this, so that a word in most rows still counts.
_IDF_FLOOR = 1e-6


@dataclass(frozen=True, slots=True)
class Bm25:
    """The two BM25 parameters of one index."""

    k1: float  # term-frequency saturation: near 0, a second occurrence adds almost nothing
    b: float  # length normalisation: 0 ignores a passage's length, 1 divides by all of it


def idf(rows: int, rows_with_phrase: int) -> float:
    """The inverse document frequency of a phrase found in ``rows_with_phrase`` of ``rows``."""
    value = math.log((rows - rows_with_phrase + 0.5) / (rows_with_phrase + 0.5))
    return value if value > 0 else _IDF_FLOOR


def score(
    frequencies: Sequence[float],
    idfs: Sequence[float],
    length: int,
    average_length: float,
    params: Bm25,
) -> float:
    """BM25 of one row, higher better: ``frequencies[i]`` is phrase i's weighted count in it."""
    # FTS5's order of operations, so that at its parameters the result is the same to the bit.
    norm = params.k1 * (1 - params.b + params.b * length / average_length)
    saturation = params.k1 + 1
    total = 0.0
    for f, weight in zip(frequencies, idfs, strict=True):
        if f:
            total += weight * (f * saturation / (f + norm))
    return total


@dataclass(frozen=True, slots=True)
class _Query:
    """What is the same for every row one query scores, worked out at its first row."""

    params: Bm25
    weights: tuple[float, ...]  # per column; a column without one weighs 1
    average_length: float
    idfs: list[float]  # per phrase


def tuned_bm25(api: FTS5ExtensionApi, *args: SQLiteValue) -> float:
    """``tuned_bm25(table, k1, b, weights...)``: FTS5's ``bm25()``, k1 and b given.

    ``api`` reads FTS5's counts for the current row; what every row of the query shares (the
    parameters, the phrases' inverse document frequencies, the average length) is worked out
    at the first row and kept as the query's auxiliary data, as ``bm25()`` keeps it. Called
    for every row a query scores, so the loop is plain and asks FTS5 for as little as it can.
    """
    query = api.aux_data
    if query is None:
        k1, b, *weights = (_number(arg) for arg in args)
        rows = api.row_count
        query = api.aux_data = _Query(
            Bm25(k1, b),
            tuple(weights) + (1.0,) * (api.column_count - len(weights)),
            api.column_total_size(-1) / rows if rows else 1.0,
            [idf(rows, _rows_with(api, phrase)) for phrase in range(api.phrase_count)],
        )
    # Most phrases are in no column of a given row: asking which columns hold one, and only
    # then for its offsets there, builds far less than asking for every column's offsets.
    weights = query.weights
    frequencies = []
    for phrase in range(len(query.idfs)):
        f = 0.0
        for column in api.phrase_columns(phrase):
            f += weights[column] * len(api.phrase_column_offsets(phrase, column))
        frequencies.append(f)
    return -score(frequencies, query.idfs, api.column_size(-1), query.average_length, query.params)


def _number(arg: SQLiteValue) -> float:
    if isinstance(arg, int | float):
        return float(arg)
    raise TypeError(f"{FUNCTION} takes k1, b and column weights as numbers, not {arg!r}")


def _rows_with(api: FTS5ExtensionApi, phrase: int) -> int:
    found = 0

    def count(_row: FTS5ExtensionApi, _closure: Any) -> None:
        nonlocal found
        found += 1

    api.query_phrase(phrase, count, None)
    return found
