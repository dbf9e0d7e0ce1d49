"""The grounding checks: passage numbers from the supplied set; code and links from cited ones."""

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from bot.answer.composer import Answer
from bot.answer.grounding import (
    LINK_REMOVED,
    block_names,
    cited_numbers,
    grounded_reason,
    inline_code,
    judge,
    links,
    markers,
    unsupported_identifiers,
)


@dataclass(frozen=True)
class P:
    text: str
    repo: str = "widgets"
    path: str = "docs/guide.md"
    heading_path: tuple[str, ...] = ("Guide",)
    symbol: str = ""
    url: str = "https://docs.example.org/guide/#tuning"


PASSAGES = [
    P("Set `frobnication.depth` to seven in `widgets.toml`. See https://example.org/tuning."),
    P("Run widgetctl install to install it.", heading_path=("Guide", "Installing")),
    P("func WithBaseURL(url string) Option", path="client.go", symbol="WithBaseURL"),
]


def answer(text="An answer.", citations=(1,), declined=False, reason=""):
    return Answer(text, tuple(citations), declined, reason)


def test_a_grounded_answer_passes():
    assert judge(answer("Set `frobnication.depth` to seven.", [1]), PASSAGES) is None


def test_no_citation_is_refused():
    decline = judge(answer("Seven.", []), PASSAGES)
    assert decline is not None and decline.kind == "ungrounded"
    assert "cited no passage" in decline.reason


def test_a_passage_the_text_points_to_is_a_citation_even_with_none_listed():
    assert judge(answer("Set `frobnication.depth` to seven [1].", []), PASSAGES) is None
    assert cited_numbers(answer("Seven [2].", [])) == (2,)


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


def test_declines_and_empty_drafts_are_kept_apart():
    declined = judge(answer("", [], declined=True, reason="Only tuning is covered."), PASSAGES)
    assert declined is not None
    assert (declined.kind, declined.reason) == ("composer_declined", "Only tuning is covered.")
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


def test_code_blocks_are_checked_for_flags_and_compound_names():
    passage = P("Run `widgetctl install --force`, then `client := widgets.NewClient(token)`.")
    grounded = "Run:\n```sh\nwidgetctl install --force\n```"
    assert judge(answer(grounded), [passage]) is None
    invented = judge(answer("Run:\n```sh\nwidgetctl install --purge\n```"), [passage])
    assert invented is not None and "`--purge`" in invented.reason
    made_up = judge(answer("```go\nc := widgets.NewClientWithRetry(token)\n```"), [passage])
    assert made_up is not None and "`NewClientWithRetry`" in made_up.reason
    # What the reader fills in is a placeholder, and plain words name nothing in particular.
    assert judge(answer("```go\nc := widgets.NewClient(<yourToken>)\n```"), [passage]) is None
    assert block_names("x := doThing(a_b, <myValue>) -v --dry-run") == [
        "doThing",
        "a_b",
        "-v",
        "--dry-run",
    ]
    assert block_names("__init__ HTTPServer MAX_SIZE plain") == ["HTTPServer", "MAX_SIZE"]


def test_code_hidden_by_fences_a_renderer_does_not_draw_is_still_checked():
    # Discord draws neither tilde fences nor unclosed ones: the spans inside show as code.
    tilde = "Set `frobnication.depth`.\n~~~\nAlso pass `--bogus-flag`.\n~~~"
    unclosed = "```\nx\n\nThen set `frobnication.level`."
    # Backticks with text after them on the same line open no fence: they make a span.
    same_line = "```frobnication.level``` is the option."
    listed = "1. Run:\n\n   ```\n   widgetctl --purge\n   ```"
    for text, name in [
        (tilde, "--bogus-flag"),
        (unclosed, "frobnication.level"),
        (same_line, "frobnication.level"),
        (listed, "--purge"),
    ]:
        decline = judge(answer(text), PASSAGES)
        assert decline is not None and f"`{name}`" in decline.reason, text


def test_links_must_come_from_a_cited_passage():
    assert (
        judge(answer("Set `frobnication.depth`; see https://example.org/tuning."), PASSAGES) is None
    )
    # The address a cited passage is cited at, with or without its anchor.
    assert judge(answer("See [the guide](https://docs.example.org/guide/)."), PASSAGES) is None
    phishing = "Set `frobnication.depth`. Log in at [the console](https://evil.example/login)."
    for text in (phishing, "See <https://evil.example/x>.", "See https://evil.example/x."):
        decline = judge(answer(text), PASSAGES)
        assert decline is not None and decline.kind == "ungrounded", text
        # The reason is shown to the asker: it says why, and never repeats the address.
        assert decline.reason.endswith("links to 1 address that no cited passage gives.")
    # A passage not cited does not vouch for an address.
    unvouched = judge(answer("Run `widgetctl install`; https://example.org/tuning.", [2]), PASSAGES)
    assert unvouched is not None and "links to 1 address" in unvouched.reason
    # An address inside code is not a link. One with parentheses is checked up to them, and
    # punctuation after an address is not part of it.
    assert links("`https://evil.example/x` and\n```\nhttps://evil.example/y\n```") == []
    assert links("[a](https://a.example/wiki/A_(b)) and https://b.example/q).") == [
        "https://a.example/wiki/A",
        "https://b.example/q",
    ]


def test_a_decline_reason_keeps_only_addresses_a_supplied_passage_gives():
    injected = (
        "The guide covers tuning, not colours. See https://evil.example/fix, "
        "[the console](https://evil.example/login), <https://evil.example/x> or "
        "`https://evil.example/code`; tuning is at https://example.org/tuning and "
        "https://docs.example.org/guide/."
    )
    decline = judge(answer("", [], declined=True, reason=injected), PASSAGES)
    assert decline is not None and decline.kind == "composer_declined"
    assert "evil.example" not in decline.reason
    assert decline.reason.count(LINK_REMOVED) == 4
    # An address a supplied passage gives, or is cited at, is kept as written.
    assert "at https://example.org/tuning and https://docs.example.org/guide/." in decline.reason
    assert decline.reason.startswith("The guide covers tuning, not colours. See (a link")
    assert grounded_reason("HTTPS://EVIL.EXAMPLE/", PASSAGES) == LINK_REMOVED
    assert grounded_reason("Nothing on colours.", PASSAGES) == "Nothing on colours."


def test_passage_markers_in_the_text_count_as_citations():
    assert markers("Seven [1], or eight [2, 3][4]; `a[5]` and items[6] are code.") == [1, 2, 3, 4]
    outside = judge(answer("Set `frobnication.depth` to seven [1][9].", [1]), PASSAGES)
    assert outside is not None and "cited passage 9" in outside.reason
    # A passage referred to in the text is a cited passage: its names count, and it is listed.
    assert judge(answer("Run `widgetctl install` [2].", [1]), PASSAGES) is None


def test_a_range_of_passages_in_the_text_counts_every_passage_in_it():
    assert markers("Seven [1-2], eight [2–3], nine [1, 3 - 3]; `[5-6]` is code.") == [1, 2, 3]
    # Every passage in the range is cited: its names count, and one beyond the set is refused.
    assert judge(answer("Run `widgetctl install` [1-2].", [1]), PASSAGES) is None
    for text in ("Set `frobnication.depth` [1-9].", "Set `frobnication.depth` [2–99]."):
        outside = judge(answer(text, [1]), PASSAGES)
        assert outside is not None and outside.kind == "ungrounded", text
        assert "only passages 1–3 were supplied" in outside.reason
    wide = judge(answer("Set `frobnication.depth` [2-99].", [1]), PASSAGES)
    assert wide is not None and "cited passage 4–99, but" in wide.reason
    # However wide, a range is checked at its ends and never counted through.
    assert markers("[1-999999]") == [1, 999999]


def test_a_range_written_between_two_markers_counts_every_passage_in_it():
    # Each once read as less: "(1)–(3)" as the label (1) and passage 3, the others as their ends.
    for text in (
        "Widgets are grey (1)–(3).",
        "Widgets are grey (1) - (3).",
        "Widgets are grey (1) — (3).",
        "Widgets are grey (1) to (3).",
        "Widgets are grey (1) through (3).",
        "Widgets are grey [1]-[3].",
        "Widgets are grey [1] to [3].",
        "Widgets are grey[^1]–[^3].",
        "Widgets are grey¹–³.",
        "Widgets are grey, as passage 1 to passage 3 say.",
    ):
        assert markers(text, 3) == [1, 2, 3], text
    # The passage in the range's middle is cited: a name taken from it is checked against it.
    ranged = answer("Run `widgetctl install` (1)–(3).", [1])
    assert judge(ranged, PASSAGES) is None
    assert cited_numbers(ranged, 3) == (1, 2, 3)
    # Markers of two forms, or a list at either end, make no range.
    assert markers("Widgets are grey [1]–(3).", 3) == [1, 3]
    assert markers("Widgets are grey [1, 2]-[3].", 3) == [1, 2, 3]


def test_a_range_between_two_markers_counts_only_passages_supplied():
    # A range reaching past the passages supplied is no range: each end is read as it was.
    assert markers("Widgets are grey (1) to (99).", 3) == [1]
    assert markers("Widgets are grey (1)–(4).", 3) == [1]
    assert markers("Widgets are grey [1]-[4].", 3) == [1, 4]
    outside = judge(answer("Set `frobnication.depth` [1]-[9].", [1]), PASSAGES)
    assert outside is not None and "cited passage 9, but" in outside.reason
    # Reversed, it is read as "(3-1)" is, and held to the passages supplied as that is.
    assert markers("Widgets are grey (3) to (1).", 3) == markers("Widgets are grey (3-1).", 3)
    assert markers("Widgets are grey (3) to (1).", 2) == [1]
    # However wide, it is checked at its ends and never counted through.
    assert markers("[1]-[999999]") == [1, 999999]


def test_steps_referred_to_again_as_a_range_between_two_numbers_are_steps():
    for text in (
        "(1) install it, (2) tune it, (3) restart it. Then repeat (1)–(3).",
        "(1) install it, (2) tune it, (3) restart it. Then repeat (1) through (3).",
        "(1) install it, (2) tune it, (3) restart it. Then repeat steps (1) to (3).",
        "Repeat steps (1)–(3).",
    ):
        assert markers(text, 3) == [], text
    # "(1)–(3) install it" labels, as "(1) to (3) install it" does.
    assert markers("Either (1)–(3) install it.", 3) == []


def test_a_passage_pointed_to_as_a_footnote_superscript_or_in_parentheses_is_checked():
    # A reader takes each of these for a passage's number, as [n] is.
    assert markers("Seven[^1], eight² and nine (3).") == [1, 2, 3]
    assert markers("Seven¹˒³, eight²⁻³; nine (1, 3) (2-3).") == [1, 3, 2]
    for marked in ("[9]", "[^9]", "[1-9]", "[^1-9]"):
        text = f"Set `frobnication.depth` to seven {marked}."
        decline = judge(answer(text, [1]), PASSAGES)
        assert decline is not None and decline.kind == "ungrounded", text
        assert "cited passage" in decline.reason and "only passages 1–3" in decline.reason, text
    footnoted = "Set `frobnication.depth` to seven[^9].\n\n[^9]: The tuning guide."
    assert judge(answer(footnoted, [1]), PASSAGES) is not None
    # A passage pointed to in any of these forms is cited: its names count, and it is listed.
    for marked in ("(2)", "[^2]", "²"):
        assert judge(answer(f"Run `widgetctl install` {marked}.", [1]), PASSAGES) is None
        assert cited_numbers(answer(f"Run it {marked}.", [1])) == (1, 2)


def test_a_superscript_or_parenthesised_number_naming_no_passage_supplied_is_prose():
    # A value written so ("the default (30).", "cm²") is no passage's number: the answer is
    # judged on its other markers, not declined for a passage it never meant.
    for marked in ("(9)", "⁹", "(1-9)", "¹⁻⁹", "(2, 30)"):
        text = f"Set `frobnication.depth` to seven {marked}."
        assert markers(text, 3) == [], text
        assert judge(answer(text, [1]), PASSAGES) is None, text
        assert cited_numbers(answer(text, [1]), 3) == (1,), text
    assert markers("Seven (2), eight³.", 3) == [2, 3]  # naming passages supplied: markers


def test_a_superscript_is_read_up_to_six_digits_as_a_bracketed_number_is():
    # Longer, it is no passage's number: prose, as [1234567] is, and never a number too long
    # to convert (Python refuses past 4,300 digits) that would end the check in an exception.
    assert markers("Seven¹²³⁴⁵⁶ and eight [123456].") == [123456]
    assert markers("Seven¹²³⁴⁵⁶⁷ and eight [1234567].") == []
    for long in ("¹" * 5_000, "¹⁻" + "⁹" * 5_000):
        text = f"Set `frobnication.depth` to seven{long} [1]."
        assert markers(text) == [1]
        assert judge(answer(text, [1]), PASSAGES) is None


def test_numbered_steps_and_exponents_are_prose_not_passage_markers():
    assert markers("Either (1) install it or (2) tune it; then (3) restart.") == []
    assert markers("Up to 10⁶ requests, O(n²) time, x² + 2³²; `f (4).` and f(5).") == []
    steps = "To tune: (1) open `widgets.toml`, (2) set `frobnication.depth` to seven [1]."
    assert judge(answer(steps, []), PASSAGES) is None
    assert cited_numbers(answer(steps, [])) == (1,)


def test_a_long_run_of_parenthesised_numbers_is_read_as_one():
    # A run is matched whole, so whether it closes a clause is decided once for all of it
    # (the regular expression reads such a run once, not once for each number in it; how
    # long that takes is for a benchmark, not this test).
    assert markers("(1) " * 20_000 + "word") == []
    assert markers("(2)" * 20_000 + ".") == [2]
    # Read one by one, every (1) here would be followed by another "(", closing nothing.
    assert markers("(1) " * 20_000 + "(2).") == [1, 2]


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
        # Read as the checker reads it: a superscript names a passage only among those supplied.
        cited = cited_numbers(draft, n_passages)
        assert cited, "an accepted answer cites something, listed or in its text"
        assert all(1 <= c <= n_passages for c in cited)
        assert text.strip()


def test_a_number_in_parentheses_that_names_a_step_is_prose_not_a_passage():
    # After a word naming a step, or where the answer labels its own steps with it inline and
    # refers back to one after the enumeration's clause has ended.
    for text in (
        "Repeat step (2).",
        "Repeat steps (1), (2) and (3).",
        "Pick option (3); item (1) is older.",
        "Compare items (1) and (2).",
        "(1) install it, (2) tune it; if that fails, repeat (2).",
    ):
        assert markers(text, 3) == [], text
    # Read as passage 2, it would let a name from that uncited passage through.
    stepped = answer("Run `widgetctl install`, as in step (1), then step (2).", [1])
    decline = judge(stepped, PASSAGES)
    assert decline is not None and "`widgetctl install`" in decline.reason
    # Where it names no step, it is still a passage's number.
    assert markers("1. Open it (3).\n2. Tune it (3).", 3) == [3]


def test_a_plural_word_before_a_lone_number_in_parentheses_leaves_it_a_passage():
    # "cases", "options": many of them, so a single number after the word names none of them.
    assert markers("This works in most cases (2).", 3) == [2]
    assert markers("The command accepts three options (1).", 3) == [1]
    decline = judge(answer("Run `widgetctl install` in most cases (2).", [1]), PASSAGES)
    assert decline is None


def test_a_singular_word_after_a_determiner_names_a_thing_and_leaves_the_number_a_passage():
    # "the option (2)" is an option the answer speaks of; "option (2)" a numbered one.
    for text in (
        "Pass the `--force` option (2).",
        "See the configuration example (2).",
        "It is listed in the table (2).",
        "Set it in the second step (2).",
    ):
        assert markers(text, 3) == [2], text
    assert markers("In that case (1).", 3) == [1]
    assert markers("Go back to step (2).", 3) == []
    assert (
        judge(answer("Run `widgetctl install` with the install option (2).", [1]), PASSAGES) is None
    )


def test_a_numbered_how_to_keeps_the_citations_that_close_its_items():
    # The list's own numbers are no reason to read "(1)." as a step: each closes a sentence.
    how_to = "1. Build the image (1).\n2. Push it (2).\n3. Restart the bot (3)."
    assert markers(how_to, 3) == [1, 2, 3]
    assert judge(answer(how_to, []), PASSAGES) is None
    assert markers("1. Open `widgets.toml`.\n2. Set the depth.\n\nIf it fails, see (2).", 3) == [2]
    # Inside an inline step, before its clause ends, a number closing it is a passage's too.
    assert markers("(1) install it (2), (2) tune it (1).", 3) == [2, 1]


def test_a_number_in_parentheses_after_a_word_pointing_to_a_source_is_a_citation():
    # More words follow it, as they follow an inline step's label, but "see" points to a source.
    for text in (
        "See (2) for details.",
        "Run it as in (2) above.",
        "Per (2), the default is seven.",
        "Tuning is covered elsewhere, cf. (2) and the guide.",
        "As described in (2) the depth is seven.",
        "Refer to (2) before tuning.",
    ):
        assert markers(text, 3) == [2], text
    # Read as a label, it left passage 2 uncited and its name refused; now the name is checked
    # against it, and the passage is listed with the citations.
    pointed = answer("Run `widgetctl install`; see (2) for details.", [1])
    assert judge(pointed, PASSAGES) is None
    assert cited_numbers(pointed, 3) == (1, 2)
    # A number naming no passage supplied is a value, as "(9)." is; a step word still makes
    # it a step's; and a label after any other word is still a label.
    assert markers("See (9) for details.", 3) == []
    assert markers("See step (2) for details.", 3) == []
    assert markers("Either (2) install it or (3) tune it.", 3) == []


def test_every_number_listed_after_a_word_pointing_to_a_source_is_a_citation():
    # Only the first was read as one: the rest, more words after them, were read as labels.
    assert markers("See (2), (3) for details.", 3) == [2, 3]
    assert markers("Set it up as in (1) and (2) above.", 3) == [1, 2]
    assert markers("Per (1), (2) or (3), the default is seven.", 3) == [1, 2, 3]
    # Left uncited, passage 3 had its name refused.
    listed = answer("See (2), (3) for details on `WithBaseURL`.", [])
    assert judge(listed, PASSAGES) is None
    assert cited_numbers(listed, 3) == (2, 3)
    # Steps the answer labelled, listed after a word that acts on them, are still its steps.
    assert markers("(1) install it, (2) tune it. See (1), (2) for details.", 3) == []
    assert markers("(1) install it, (2) tune it. Repeat (1), (2).", 3) == []
    assert markers("See step (2), (3) for details.", 3) == []


def test_a_number_closing_a_clause_after_inline_steps_is_a_citation_unless_it_is_acted_on():
    # The answer labelled steps (1) and (2), and a later sentence closes with "(1).": after a
    # word that does not act on a step, it cites passage 1.
    for text in (
        "(1) install it, (2) tune it. Restart it afterwards (1).",
        "To tune: (1) open the file, (2) set the depth. It is seven by default (1).",
        # Where code was taken out, a value was named: "set it to `7` (1)." cites passage 1.
        "(1) open it, (2) tune it. Set the depth to `7` (1).",
    ):
        assert markers(text, 3) == [1], text
    # After a word that acts on it, it is the step referred to again.
    for text in (
        "(1) install it, (2) tune it; if that fails, repeat (2).",
        "(1) install it, (2) tune it. If that fails, go back to (1).",
        "(1) install it, (2) tune it. If it fails, see (2).",
    ):
        assert markers(text, 3) == [], text
    # Read as step 2, the closing number left passage 2 uncited and its name refused.
    stepped = answer("(1) Open the guide, (2) read it. Run `widgetctl install` first (2).", [1])
    assert judge(stepped, PASSAGES) is None
    assert cited_numbers(stepped, 3) == (1, 2)


def test_a_number_after_a_word_saying_a_source_holds_something_is_a_citation_after_steps():
    # "described in", "shown in": a source holds it, so after steps labelled (1) and (2) the
    # number names passage 2, not step 2 referred to again.
    for text in (
        "(1) install it, (2) tune it. Tuning is described in (2).",
        "(1) install it, (2) tune it. The depth is shown in (2).",
        "(1) install it, (2) tune it. Both are explained in (1) and (2).",
        "(1) install it, (2) tune it; the depth is documented by (2).",
    ):
        assert markers(text, 3) != [], text
    assert markers("(1) install it, (2) tune it. Tuning is described in (2).", 3) == [2]
    # The word "step" still makes it a step's, and a word that acts on a step still takes it.
    assert markers("(1) install it, (2) tune it. Tuning is described in step (2).", 3) == []
    assert markers("(1) install it, (2) tune it. If that fails, go back to (2).", 3) == []
    # Read as step 2, it left passage 2 uncited and its name refused.
    described = answer(
        "(1) Open the guide, (2) read it. `widgetctl install` is described in (2).", [1]
    )
    assert judge(described, PASSAGES) is None
    assert cited_numbers(described, 3) == (1, 2)
    # The words before a number are read a bounded way back, however many there are.
    assert markers("(1) a, (2) b. " + "described in " * 50_000 + "(2).", 3) == [2]


def test_steps_referred_to_again_as_a_list_are_steps_and_a_list_closing_a_clause_cites():
    # "repeat (1) and (2).": the (1) joined to the (2) was read as a step labelled anew, so no
    # clause had ended since the last label and (2) was read as a passage.
    for text in (
        "(1) install it, (2) tune it. Then repeat (1) and (2).",
        "(1) install it, (2) tune it. If it fails, go back to (1) or (2).",
        "(1) install it, (2) tune it, (3) restart it. Then repeat (1) to (3).",
    ):
        assert markers(text, 3) == [], text
    repeated = answer(
        "(1) Set `frobnication.depth` to seven [1], (2) restart. If it fails, repeat (1) and (2).",
        [1],
    )
    assert judge(repeated, PASSAGES) is None
    assert cited_numbers(repeated, 3) == (1,)
    # A list closing a clause where no step was labelled is read whole: both are passages.
    assert markers("Widgets are grey (1) and (2).", 3) == [1, 2]
    # A list that more words follow is a list of labels still.
    assert markers("Either (1) or (2) install it.", 3) == []
    # However long, a list is read once, not again from each of its numbers.
    assert markers("(1) and " * 20_000 + "(2).", 3) == [1, 2]


def test_a_list_closing_a_clause_after_steps_is_read_by_the_word_before_it():
    # "grey (1) and (2).": the "and" right before its (2) was read as taking step 2 again, so
    # after steps labelled (1) and (2) the list cited passage 1 alone.
    for text in (
        "(1) install it, (2) tune it. Widgets are grey (1) and (2).",
        "(1) install it, (2) tune it. Both are described (1) or (2).",
    ):
        assert markers(text, 3) == [1, 2], text
    assert markers("(1) install it, (2) tune it. Then repeat (1) and (2).", 3) == []
    listed = answer("(1) Open the guide, (2) read it. It is `widgetctl install` (1) and (2).", [1])
    assert judge(listed, PASSAGES) is None
    assert cited_numbers(listed, 3) == (1, 2)


def test_every_verb_saying_a_source_holds_something_makes_a_citation_after_steps():
    # "given in", "listed in" say a source holds it as "described in" does: after steps
    # labelled (1) and (2), the number was read as step 2 and passage 2 went uncited.
    for verb in ("given", "stated", "noted", "listed", "defined", "outlined", "detailed"):
        text = f"(1) install it, (2) tune it. The depth is {verb} in (2)."
        assert markers(text, 3) == [2], text
    assert markers("(1) install it, (2) tune it. The depth is mentioned by (2).", 3) == [2]
    assert markers("(1) install it, (2) tune it. The depth is listed in step (2).", 3) == []
    listed = answer("(1) Open the guide, (2) read it. `widgetctl install` is listed in (2).", [1])
    assert judge(listed, PASSAGES) is None
    assert cited_numbers(listed, 3) == (1, 2)


def test_a_superscript_after_a_bracketed_code_span_is_a_marker():
    # Its code taken out, "(`--force`)" holds nothing to raise.
    assert markers("Use the flag (`--force`)².", 3) == [2]
    assert markers("Use the flag [`--force`]².", 3) == [2]


def test_a_superscript_raising_a_unit_or_an_expression_is_an_exponent_not_a_passage():
    assert markers("Per cm¹ or 2 km², at 9.8 m/s², in 3 ft²; O((n+1)²) and f(x)².", 3) == []
    # After any other word, or after punctuation, it stands where a footnote marker stands.
    assert markers("It returns an error², see the guide.³ (as the guide says)¹", 3) == [2, 3, 1]
    decline = judge(answer("Run `widgetctl install` on a board of 10 cm².", [1]), PASSAGES)
    assert decline is not None and "`widgetctl install`" in decline.reason


def test_a_passage_named_in_words_is_a_marker_like_a_bracketed_number():
    text = "As passage 2 says (passage 3); passages 1 and 3, passages 1 to 3 and passage #2."
    assert markers(text) == [2, 3, 1]
    assert markers("Passages 2-3, or passages 1, 2, or 3.") == [2, 3, 1]
    # Not a decimal, nor a number run into a word, nor the word inside another.
    assert markers("Passage 2.5, passage 2a, bypassage 2, the passages.") == []
    # It names a passage, so one not supplied is refused, and one supplied is cited.
    outside = judge(answer("Set `frobnication.depth` to seven, as passage 9 says.", [1]), PASSAGES)
    assert outside is not None and "cited passage 9, but" in outside.reason
    named = answer("Run `widgetctl install`, as passage 2 says.", [1])
    assert judge(named, PASSAGES) is None
    assert cited_numbers(named, 3) == (1, 2)


def test_a_draft_that_only_says_the_passages_do_not_answer_is_a_decline_in_its_words():
    draft = answer("The passages do not say how to colour a widget [1].", [1])
    decline = judge(draft, PASSAGES)
    assert decline is not None and decline.kind == "composer_declined"
    assert decline.reason == "The passages do not say how to colour a widget."
    # A range written between two markers is its marker, not a clause or a word of the reason.
    ranged = judge(answer("Passage [1]-[3] does not say how to colour a widget.", [1]), PASSAGES)
    assert ranged is not None and ranged.kind == "composer_declined"
    assert ranged.reason == "Passage 1-3 does not say how to colour a widget."
    # An address in it is held to the rule for a decline's reason.
    linked = answer("The passages do not say what https://evil.example/ holds.", [1])
    decline = judge(linked, PASSAGES)
    assert decline is not None and LINK_REMOVED in decline.reason
    # An aside citing a passage for something of its own is part of an answer: it is shown with
    # its citation checked, not declined with a name in its reason that no check has read.
    aside = "The passages do not give a default depth (the example sets `{}` [1])."
    assert judge(answer(aside.format("frobnication.depth"), []), PASSAGES) is None
    unsupported = judge(answer(aside.format("--force"), []), PASSAGES)
    assert unsupported is not None and unsupported.kind == "ungrounded"
    assert "`--force`" in unsupported.reason
    # However the aside cites the passage: named in words, it is read as [1] is.
    worded = judge(
        answer("The passages do not give a default (passage 1 sets `--force`).", []), PASSAGES
    )
    assert worded is not None and worded.kind == "ungrounded"
    # A real answer that also says what the passages leave out is judged as an answer.
    mixed = "The passages do not mention colours. Set `frobnication.depth` to seven [1]."
    assert judge(answer(mixed, [1]), PASSAGES) is None
