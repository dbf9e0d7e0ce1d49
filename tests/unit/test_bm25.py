"""BM25 with chosen k1 and b: the formula, and the FTS5 function that computes it."""

from __future__ import annotations

import math

import apsw
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.index.bm25 import FUNCTION, Bm25, idf, score, tuned_bm25

WORDS = ["flag", "flags", "root", "command", "persistent", "codec", "heredoc", "the", "set"]


def _table(rows: list[tuple[str, str]]) -> apsw.Connection:
    conn = apsw.Connection(":memory:")
    conn.register_fts5_function(FUNCTION, tuned_bm25)
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(heading, body, tokenize = 'porter unicode61')")
    conn.executemany("INSERT INTO t (heading, body) VALUES (?, ?)", rows)
    return conn


def _ranked(conn: apsw.Connection, function: str, query: str) -> list[tuple[int, float]]:
    sql = f"SELECT rowid, {function} FROM t WHERE t MATCH ? ORDER BY 2, rowid"
    return [(int(r[0]), float(r[1])) for r in conn.execute(sql, (query,))]


_text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=30).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(st.tuples(_text, _text), min_size=1, max_size=12),
    query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),
    phrase=st.booleans(),
    weights=st.tuples(st.sampled_from([1.0, 2.0, 3.0, 10.0]), st.sampled_from([0.5, 1.0, 5.0])),
)
def test_at_fts5s_own_parameters_it_scores_exactly_as_bm25(rows, query, phrase, weights):
    conn = _table(rows)
    words = " OR ".join(f'"{w}"' for w in query)
    if phrase and len(query) > 1:
        words += f' OR "{query[0]} {query[1]}"'
    w = f"{weights[0]}, {weights[1]}"
    builtin = _ranked(conn, f"bm25(t, {w})", words)
    tuned = _ranked(conn, f"{FUNCTION}(t, 1.2, 0.75, {w})", words)
    assert [r for r, _ in tuned] == [r for r, _ in builtin]
    assert tuned == builtin  # to the last bit


def test_without_length_normalisation_a_longer_row_scores_the_same():
    short = score([1.0], [2.0], length=5, average_length=20.0, params=Bm25(1.2, 0.0))
    long = score([1.0], [2.0], length=80, average_length=20.0, params=Bm25(1.2, 0.0))
    assert short == pytest.approx(long)


def test_full_length_normalisation_marks_a_longer_row_down_more_than_half_does():
    def ratio(b: float) -> float:
        long = score([1.0], [2.0], length=80, average_length=20.0, params=Bm25(1.2, b))
        short = score([1.0], [2.0], length=5, average_length=20.0, params=Bm25(1.2, b))
        return long / short

    assert ratio(1.0) < ratio(0.5) < 1.0


def test_a_small_k1_makes_a_repeated_word_add_little():
    def gain(k1: float) -> float:
        twice = score([2.0], [1.0], length=10, average_length=10.0, params=Bm25(k1, 0.75))
        once = score([1.0], [1.0], length=10, average_length=10.0, params=Bm25(k1, 0.75))
        return twice / once

    assert 1.0 < gain(0.1) < gain(1.2) < gain(5.0) < 2.0


def test_a_phrase_absent_from_a_row_adds_nothing():
    params = Bm25(1.5, 0.5)
    assert score([0.0, 1.0], [9.0, 1.0], 10, 10.0, params) == score([1.0], [1.0], 10, 10.0, params)


def test_a_word_in_most_rows_still_counts_a_little():
    assert idf(10, 9) == pytest.approx(1e-6)
    assert idf(10, 1) == pytest.approx(math.log(9.5 / 1.5))


def test_the_parameters_given_change_the_ranking():
    # Row 1 says "codec" once in a few words; row 2 says it three times in a long text.
    conn = _table(
        [
            ("", "codec " + "the " * 3),
            ("", "codec " * 3 + "the " * 40),
            ("", "the set"),
        ]
    )
    saturating = _ranked(conn, f"{FUNCTION}(t, 0.1, 0.75)", '"codec"')
    counting = _ranked(conn, f"{FUNCTION}(t, 5.0, 0.0)", '"codec"')
    assert [r for r, _ in saturating] == [1, 2]
    assert [r for r, _ in counting] == [2, 1]


def test_a_parameter_that_is_not_a_number_is_an_error_that_says_so():
    conn = _table([("", "codec")])
    with pytest.raises(TypeError, match="k1, b and column weights as numbers"):
        _ranked(conn, f"{FUNCTION}(t, 'x', 0.5)", '"codec"')
