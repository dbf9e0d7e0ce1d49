"""A page's evidence: ordering sections of prose by how well their whole page matches too.

A section is ranked by its own words, but the page it belongs to says more about what it is
for. A section headed "Loading it for good" answers how to keep tab completion in every new
terminal because its page is about shell completion; a sentence on a settings page that uses
the same words, beside sections on colours and fonts, does not. So a section of prose is
ordered by its own score plus a share of its page's score (BM25 over the page's whole text,
length-normalised, so a long page that mentions everything once is not favoured).

The page's score orders sections of prose among themselves only: they exchange places, each
taking the score of the place it lands in, while every code passage keeps its place. How prose
stands against code stays as the passages' own scores decide it (a source file is not a page
in this sense, and measured, a file's score beside a symbol's did not rank code better).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

# How much of its page's score a section of prose adds to its own when sections are ordered.
# Measured on the benchmark questions: from 0.15 to 0.25 every set ranks the same; 0.1 moves
# fewer answers up; from 0.3 answers slip behind sections of broad pages that use every word.
PAGE_SHARE = 0.2


def order_by_page(
    ranked: Sequence[tuple[T, float]],
    page_scores: Sequence[float | None],
    share: float = PAGE_SHARE,
) -> list[tuple[T, float]]:
    """``ranked`` (passages with their scores, best first) with prose ordered by its pages.

    ``page_scores`` holds, for each passage in the same order, its page's score, or ``None``
    for a code passage, which keeps its place. The places prose holds are refilled with the
    prose passages in order of ``score + share × page score`` (ties keep their order), and
    each passage takes its new place's score, so the result is still best first.
    """
    if len(page_scores) != len(ranked):
        raise ValueError("one page score, or None, is needed for each ranked passage")
    pages = {i: page for i, page in enumerate(page_scores) if page is not None}
    prose = sorted(pages, key=lambda i: -(ranked[i][1] + share * pages[i]))
    ordered = list(ranked)
    for place, moved in zip(pages, prose, strict=True):
        ordered[place] = (ranked[moved][0], ranked[place][1])
    return ordered
