import sqlite3

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.index.query import (
    MAX_QUERY_TERMS,
    build_query,
    content_terms,
    identifier_phrases,
    identifiers,
    phrases,
    query_terms,
    written_as_code,
)


def test_words_then_phrases_are_quoted_lowercased_and_or_joined():
    assert build_query("How do I HOT-reload config?") == (
        '"hot" OR "reload" OR "config" OR "hot reload" OR "reload config"'
    )


def test_phrases_skip_pairs_of_function_words_and_lone_letters():
    assert phrases("what is a for expression, e.g. this") == ["for expression"]


def test_function_words_are_dropped_unless_nothing_else_is_left():
    assert query_terms("what can I put in a message") == ["put", "message"]
    assert query_terms("how are you") == ["how", "are", "you"]


def test_content_terms_are_only_what_the_question_is_about():
    assert content_terms("what can I put in a message") == ["put", "message"]
    assert content_terms("what is it?") == []
    assert content_terms("what is `it`?") == ["it"]


def test_a_function_word_written_as_a_flag_or_a_code_name_is_searched():
    assert query_terms("is there a --yes flag") == ["yes", "flag"]
    assert query_terms("does `App.After` run if it panics") == ["app", "after", "run", "panics"]
    # a code span holding a sentence is prose in backticks, and a lone letter is still dropped
    assert query_terms("why `it is closing` with -v") == ["closing"]


def test_words_written_as_code_are_flags_and_single_names_in_backticks():
    found = written_as_code("--dry-run, -all, `Client.Do`, `a b`, well-known")
    assert found == {"dry", "run", "all", "client", "do"}


def test_a_name_called_with_its_arguments_is_written_as_code():
    assert written_as_code('users write try(var.foo, "x") or can (maybe)') == {"try"}
    assert "try" in query_terms('how do I let users write try(var.foo.bar, "default")?')
    # with a space before the parenthesis it is prose, and a function word is still dropped
    assert "try" not in query_terms("should I try (again) to dial?")


def test_no_letters_or_digits_means_an_empty_query():
    assert build_query("?!… 🎉 ---") == ""


def test_compound_identifiers_search_their_words_together_as_a_phrase():
    assert query_terms("what does WithBaseURL do") == ["withbaseurl"]
    assert identifier_phrases("set WithBaseURL or max_recv_msg_size") == ["with base url"]
    query = build_query("is the FilePath field read at start-up?")
    assert '"file path"' in query
    assert '"file"' not in query and '"path"' not in query


def test_an_identifier_the_index_lacks_is_also_searched_by_its_loose_words():
    question = "what does updateWithDetecton do"
    assert query_terms(question) == ["updatewithdetecton"]
    assert query_terms(question, unknown=["updatewithdetecton"]) == [
        "updatewithdetecton",
        "update",
        "detecton",
    ]
    assert '"update with detecton"' in build_query(question, unknown=["updatewithdetecton"])


def test_identifier_phrases_survive_the_cut_of_a_long_question():
    words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike"
    question = f"{words} november oscar papa quebec romeo sierra tango HTTPServer"
    query = build_query(question)
    assert query.count(" OR ") + 1 == MAX_QUERY_TERMS  # the word pairs did not all fit
    assert '"http server"' in query


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
    # Every identifier unknown to the index is the most the query can hold.
    for unknown in ((), list(identifiers(question))):
        query = build_query(question, unknown)
        if query:
            CONN.execute("SELECT rowid FROM t WHERE t MATCH ?", (query,)).fetchall()
    for name in identifiers(question):  # as the retriever asks whether the index holds it
        CONN.execute("SELECT rowid FROM t WHERE t MATCH ?", (f'"{name}"',)).fetchall()


def test_a_100kb_paste_is_searched_not_refused():
    paste = 'Traceback (most recent call last):\n  File "x.py", line 1\n' * 2000
    query = build_query(paste)
    assert 0 < query.count(" OR ") + 1 <= MAX_QUERY_TERMS
    CONN.execute("SELECT rowid FROM t WHERE t MATCH ?", (query,)).fetchall()
