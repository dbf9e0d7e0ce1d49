"""Reciprocal rank fusion: several rankings of one question become one.

The rankings being joined score on scales that cannot be compared (a BM25 sum, a cosine, a
count of a symbol's words), so only positions are used: each ranking gives an item
``weight / (k + rank)``, and the sums decide. An item high in two rankings beats one at the
top of only one; ``k`` keeps the very first places from drowning everything else.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

K = 60  # the customary constant; callers with rankings of unequal quality pass a smaller one

T = TypeVar("T", bound=Hashable)


def fuse(
    rankings: Sequence[Sequence[T]], weights: Sequence[float] | None = None, k: int = K
) -> list[tuple[T, float]]:
    """Items of every ranking with their fused score, best first.

    Ties keep the order in which items were first met, rankings taken in the order given.
    """
    if weights is None:
        weights = [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError("one weight per ranking")
    scores: dict[T, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, item in enumerate(ranking, 1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda pair: -pair[1])
