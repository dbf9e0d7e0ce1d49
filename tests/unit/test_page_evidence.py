"""Ordering sections of prose by their pages, code passages keeping their places."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.index.page_evidence import order_by_page


def test_prose_is_ordered_by_its_own_score_and_a_share_of_its_pages():
    ranked = [("lone section", 10.0), ("section of a matching page", 9.5)]
    # 9.5 + 0.2 × 8 = 11.1 outranks 10 + 0.2 × 2 = 10.4.
    assert order_by_page(ranked, [2.0, 8.0], share=0.2) == [
        ("section of a matching page", 10.0),
        ("lone section", 9.5),
    ]


def test_a_page_adds_too_little_to_overturn_a_clear_lead():
    ranked = [("lone section", 12.0), ("section of a matching page", 9.5)]
    assert order_by_page(ranked, [2.0, 8.0], share=0.2) == ranked


def test_code_keeps_its_place_while_prose_moves_around_it():
    ranked = [("prose a", 10.0), ("code", 9.8), ("prose b", 9.6)]
    assert order_by_page(ranked, [0.0, None, 10.0], share=0.2) == [
        ("prose b", 10.0),
        ("code", 9.8),
        ("prose a", 9.6),
    ]


def test_no_share_and_equal_pages_change_nothing():
    ranked = [("a", 3.0), ("b", 2.0), ("c", 2.0), ("d", 1.0)]
    assert order_by_page(ranked, [1.0, 5.0, 0.0, None], share=0.0) == ranked
    assert order_by_page(ranked, [4.0, 4.0, 4.0, 4.0], share=0.2) == ranked


def test_a_missing_page_score_is_refused():
    with pytest.raises(ValueError, match="one page score"):
        order_by_page([("a", 1.0), ("b", 0.5)], [1.0])


_PASSAGES = st.lists(
    st.tuples(
        st.floats(min_value=0, max_value=100, allow_nan=False),
        st.one_of(st.none(), st.floats(min_value=0, max_value=100, allow_nan=False)),
    ),
    max_size=30,
)


@given(_PASSAGES)
def test_the_order_stays_best_first_and_loses_or_moves_no_code(passages):
    passages.sort(key=lambda p: -p[0])
    ranked = [(i, score) for i, (score, _) in enumerate(passages)]
    pages = [page for _, page in passages]
    ordered = order_by_page(ranked, pages)
    assert [score for _, score in ordered] == [score for _, score in ranked]
    assert sorted(i for i, _ in ordered) == list(range(len(ranked)))
    for place, (i, _) in enumerate(ordered):
        assert (pages[i] is None) == (pages[place] is None)
        if pages[i] is None:
            assert i == place
