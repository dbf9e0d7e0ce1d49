import sqlite3

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.index.query import MAX_QUERY_TERMS, build_query, phrases, query_terms


def test_words_then_phrases_are_quoted_lowercased_and_or_joined():
    assert build_query("How do I HOT-reload config?") == (
        '"hot" OR "reload" OR "config" OR "hot reload" OR "reload config"'
    )


def test_phrases_skip_pairs_of_function_words_and_lone_letters():
    assert phrases("what is a for expression, e.g. this") == ["for expression"]


def test_function_words_are_dropped_unless_nothing_else_is_left():
    assert query_terms("what can I put in a message") == ["put", "message"]
    assert query_terms("how are you") == ["how", "are", "you"]


def test_no_letters_or_digits_means_an_empty_query():
    assert build_query("?!… 🎉 ---") == ""


def test_compound_identifiers_also_search_their_words():
    assert query_terms("what does WithBaseURL do") == ["withbaseurl", "base", "url"]


def test_query_syntax_in_the_question_is_just_words():
    assert query_terms('col:value NEAR("x" y) AND') == ["col", "value", "near"]
    assert '"col value"' in build_query("col:value")


def test_terms_are_bounded_and_distinct():
    terms = query_terms(" ".join(f"word{i}" for i in range(100)) + " word1 word1")
    assert len(terms) == MAX_QUERY_TERMS
    assert len(set(terms)) == len(terms)


def _fts() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(a, tokenize='porter unicode61')")
    conn.execute("INSERT INTO t VALUES ('hot reload of config files')")
    return conn


CONN = _fts()


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.text(),
        st.text(alphabet=st.sampled_from(list("\"*^():-+ ANDORNOT\\'\x00{}[]🎉é日本"))),
        st.binary().map(lambda b: b.decode("utf-8", errors="replace")),
    )
)
def test_no_question_ever_raises_from_sqlite(question):
    query = build_query(question)
    if query:
        CONN.execute("SELECT rowid FROM t WHERE t MATCH ?", (query,)).fetchall()


def test_a_100kb_paste_is_searched_not_refused():
    paste = 'Traceback (most recent call last):\n  File "x.py", line 1\n' * 2000
    query = build_query(paste)
    assert 0 < query.count(" OR ") + 1 <= MAX_QUERY_TERMS
    CONN.execute("SELECT rowid FROM t WHERE t MATCH ?", (query,)).fetchall()
