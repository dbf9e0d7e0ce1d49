"""The grounding checks: citations inside the supplied set, identifiers from cited passages."""

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from bot.answer.composer import Answer
from bot.answer.grounding import inline_code, judge, unsupported_identifiers


@dataclass(frozen=True)
class P:
    text: str
    repo: str = "widgets"
    path: str = "docs/guide.md"
    heading_path: tuple[str, ...] = ("Guide",)
    symbol: str = ""


PASSAGES = [
    P("Set `frobnication.depth` to seven in `widgets.toml`."),
    P("Run widgetctl install to install it.", heading_path=("Guide", "Installing")),
    P("func WithBaseURL(url string) Option", path="client.go", symbol="WithBaseURL"),
]


def answer(text="An answer.", citations=(1,), declined=False, reason="", malformed=None):
    return Answer(text, tuple(citations), declined, reason, malformed=malformed)


def test_a_grounded_answer_passes():
    assert judge(answer("Set `frobnication.depth` to seven.", [1]), PASSAGES) is None


def test_no_citation_is_refused():
    decline = judge(answer("Seven.", []), PASSAGES)
    assert decline is not None and decline.kind == "ungrounded"
    assert "cited no passage" in decline.reason


def test_citations_outside_the_set_are_refused():
    for bad in ([0], [4], [99], [-1], [1, 4]):
        decline = judge(answer("Seven.", bad), PASSAGES)
        assert decline is not None and decline.kind == "ungrounded", bad
        assert "only passages 1–3 were supplied" in decline.reason


def test_an_identifier_missing_from_the_cited_passages_is_refused():
    decline = judge(answer("Set `frobnication.level` to seven.", [1]), PASSAGES)
    assert decline is not None and "`frobnication.level`" in decline.reason
    # Present in the index, but not in a passage the answer cites.
    decline = judge(answer("Run `widgetctl install`.", [1]), PASSAGES)
    assert decline is not None and "`widgetctl install`" in decline.reason
    assert judge(answer("Run `widgetctl install`.", [2]), PASSAGES) is None


def test_identifiers_match_symbols_and_calls():
    assert judge(answer("Use `WithBaseURL()`.", [3]), PASSAGES) is None
    assert judge(answer("Use ``WithBaseURL(url string)``.", [3]), PASSAGES) is None
    assert judge(answer("Use `WithBaseUrl()`.", [3]), PASSAGES) is not None
    # Only a call's parentheses may be dropped: a longer name is another name.
    assert unsupported_identifiers("Use `WithBaseURLs`.", [PASSAGES[2]]) == ["WithBaseURLs"]
    assert unsupported_identifiers("Call it with `()`.", [PASSAGES[0]]) == ["()"]


def test_a_refusal_names_at_most_five_missing_identifiers():
    names = [f"`missing{i}`" for i in range(7)]
    decline = judge(answer(f"Use {', '.join(names)}.", [1]), PASSAGES)
    assert decline is not None
    assert all(name in decline.reason for name in names[:5])
    assert names[5] not in decline.reason


def test_declines_and_unreadable_replies_are_kept_apart():
    declined = judge(answer("", [], declined=True, reason="Only tuning is covered."), PASSAGES)
    assert declined is not None
    assert (declined.kind, declined.reason) == ("composer_declined", "Only tuning is covered.")
    unread = judge(answer(malformed="the reply lacks answer"), PASSAGES)
    assert unread is not None and unread.kind == "ungrounded"
    empty = judge(answer("  ", [1]), PASSAGES)
    assert empty is not None and empty.kind == "ungrounded"


def test_inline_code_spans():
    text = (
        "Use `a.b` and ``c `d` e`` and `  spaced   out `.\n"
        "```toml\nnot = `counted`\n```\n"
        "Then `last`; a lone ` backtick is not code."
    )
    assert inline_code(text) == ["a.b", "c `d` e", "spaced out", "last"]
    assert unsupported_identifiers("`frobnication.depth`", [PASSAGES[0]]) == []


@given(
    n_passages=st.integers(min_value=0, max_value=10),
    citations=st.lists(st.integers(min_value=-1000, max_value=1000), max_size=6),
    text=st.text(max_size=80),
    declined=st.booleans(),
)
def test_the_checker_never_accepts_a_citation_outside_the_set(
    n_passages, citations, text, declined
):
    passages = [P(f"passage {i} text") for i in range(n_passages)]
    draft = answer(text, citations, declined=declined)
    verdict = judge(draft, passages)
    if verdict is None:
        assert not declined
        assert citations, "an accepted answer cites something"
        assert all(1 <= c <= n_passages for c in citations)
        assert text.strip()
