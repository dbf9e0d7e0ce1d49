"""Telling a draft that only says the passages do not answer from a real answer."""

import pytest

from bot.answer.nonanswer import is_non_answer, without_markers

NON_ANSWERS = [
    "The passages do not say how to colour a widget [1].",
    "The provided passages don’t specify a default colour.",
    "However, the documentation does not mention colours [2]. It does not describe themes either.",
    "None of the passages mention colours.",
    "No passage explains how to colour a widget [1].",
    "The passages say nothing about colours.",
    "How to colour a widget is not covered in the passages [1].",
    "There is no information about colours in the passages.",
    "I could not find anything about colours in the passages.",
    "- The passages do not cover colours.\n- They do not mention themes.",
    "Passage [1] does not say which colours exist.",
    "Unfortunately, the documentation provided does not explicitly state the colours.",
    "None of the passages [1, 2] mention colours.",
    "Neither passage mentions colours [1].",
    # A list, or a phrase with "as", is the object of what the passages leave out.
    "The passages do not mention red, green or blue widgets [1].",
    "The passages do not mention running widgetctl as a service [1].",
    # A comma before the "and" or "or" that closes a list leaves it a list.
    "The passages do not cover Windows, macOS, and BSD.",
    "The documentation does not say whether widgets run on Windows, macOS, or BSD [1].",
    "There is no mention of Windows, macOS, or BSD in the passages.",
    "The passages do not say whether Windows, macOS, and BSD are supported [1].",
    "The passages do not mention timeouts, retries, and whether the depth can change.",
    # A verb _VERB does not read leaves it a list, as the docs say: a limit, not a goal.
    "The passages do not cover Windows, macOS, and the tool runs only on Linux [2].",
    # An aside that only points to a passage, or cites none, says nothing more.
    "The passages do not give a default (see [2]).",
    "The passages do not give a default (see passage [2] above).",
    "The passages do not give a default (e.g. [1], [2]).",
    "The passages do not give a default (cf. passage [2] above).",
    "The passages do not give a default (e.g. passage [2]).",
    "The passages do not mention colours (or themes) [1].",
    "The passages do not give a default depth (see the tuning guide [1]).",
    "The passages do not give a default depth (as noted in [1]).",
    "The passages do not give a default depth (only mentioned in passing in [1]).",
    # An aside that says again what is missing says nothing a passage holds.
    "The passages do not give a default depth (the default depth is not given [1]).",
    "The passages do not give a default depth (they don't mention it [1]).",
    "The passages do not give a default depth (neither [1] nor [2] does).",
    "The passages do not give a default depth (passage [1] only mentions depth).",
    "The passages do not give a default depth (the guide only mentions depth [1]).",
    "The passages do not give a default depth (default depth [1]).",
    # An aside that names nothing in code says what the draft says of the passages, not a name
    # of theirs that a check would read.
    "The passages do not say how to colour a widget (they cover only sizes [1]).",
    "The passages do not give a default depth (the closest match is [1]).",
    "The passages do not give a default depth (the passages only discuss installation [2]).",
    "The passages do not say how to colour widgets (they are about installing [2]).",
    "The passages do not say how to colour widgets (installation is covered in [2]).",
    "The passages do not say how to colour widgets (I checked [1]-[3]).",
    "The passages do not mention colours (according to [1]).",
    "The passages do not mention colours (possibly relevant: [1]).",
    # Nor does one naming code that only points or says again what is missing.
    "The passages do not document reinstalling (see `--force` in [2]).",
    "The passages do not give a default depth (`frobnication.depth` has none [1]).",
    "The passages do not give a default depth (passage [1] mentions `depth`, not its default).",
    # Its words are no second clause of the sentence's, "but" and ";" included.
    "The passages do not give a default depth (passage [1] mentions depth but not its default).",
    "The passages do not give a default depth (passage [1] mentions `depth` but no default).",
    "The passages do not give a default depth (passage [1] names `depth`; it gives no default).",
    # A second clause that only says what the passages do cover is read as such an aside is: it
    # describes the passages, and names nothing a check would read.
    "The passages do not say how to colour widgets; they only cover installation [1].",
    "The passages do not say how to colour widgets, but they discuss themes [2].",
    "The passages do not say how to colour widgets; passage [2] focuses on installation.",
    "The passages do not say how to colour widgets; they deal with tuning only (1).",
    # "Mention" with a bare topic after it is read so too: a model says this when it declines,
    # and shown as an answer it would drop the question from the documentation gaps.
    "The passages do not explain how to colour a widget; they only mention installation [1].",
    "The passages do not explain how to colour a widget, but they mention retries [1].",
    # Nor does one that only asks the question again.
    "The passages do not say whether it can, or how [1].",
    "The passages do not say whether widgets can be coloured, and why not [1].",
]

ANSWERS = [
    "Set `frobnication.depth` to seven [1].",
    # A statement of its own after the absence, in the same sentence or the next.
    "The passages do not say how to colour a widget, but `widgetctl paint` sets a theme [1].",
    "The passages do not mention colours [1]. Widgets are grey [2].",
    "The passages do not specify a default; set it to seven [1].",
    "The documentation does not say, so set `depth` to seven [1].",
    "The passages do not say X, and widgets are grey [1].",
    "The passages do not give a default, it is set by the server [1].",
    "The passages do not give a default, `depth` is seven [1].",
    "The passages do not mention colours, only themes [1].",
    # After a list closed by "and" or "or", or after one closed already, ", and" opens a clause,
    # as it does after a subject or a code span whatever came before it.
    "The passages do not mention red or blue, and widgets are grey [1].",
    "The passages do not cover Windows, macOS, and BSD, and widgets are grey [1].",
    # So does a list's closing ", and" where a verb follows it, unless a question word before
    # the list makes the list that verb's subject.
    "The passages do not mention red, green, and widgets are grey [1].",
    "The passages do not mention timeouts, retries, and the default depth is seven [1].",
    "The passages do not cover Windows, macOS, and it runs on neither [1].",
    "The passages do not cover Windows, macOS, and `widgetctl` runs on Linux only [1].",
    "The passages do not mention a `--colour` flag; widgets cannot be coloured [1].",
    # A clause saying what the passages cover is a statement where it names something as code,
    # gives a figure, or says something of its own about it; one with another subject is too.
    "The docs do not list a default; the example sets `--depth 3` [1].",
    "The docs do not list a default; they describe the `retries` option [1].",
    "The docs do not list a default; they mention 30 seconds as typical [1].",
    "The docs do not list a default; they mention that it is three [1].",
    "The docs do not list a default; they mention the default is three [1].",
    "The docs do not list a default, but they cover the limit, which is three [1].",
    "The docs do not list a default; they say it is three [1].",
    "The docs do not list a default; it defaults to three [1].",
    "The passages do not say whether it can, or how: `widgetctl paint` does it [1].",
    "The passages do not say whether it can, or how `widgetctl paint` does it [1].",
    "Widgets are grey and colour is not covered in the passages.",
    # An aside citing a passage for something of its own is a statement of that passage's.
    "The passages do not give a default (the example sets `--force` [2]).",
    "The passages do not say how to colour a widget (they cover only `widget.size` [1]).",
    "The passages do not give a default (the example sets `--no-color` [2]).",
    # An aside that says again what is missing, and then something of its own, is a statement.
    "The passages do not give a default depth (not in [1]; it is `3` in the example).",
    "The passages do not give a default depth (passage [1] gives none, but `depth` is 3).",
    # In any form a citation is read in: a passage named in words, a footnote, a superscript.
    "The passages do not give a default (the example in passage 2 sets `--force`).",
    "The passages do not give a default (the example sets `--force` [^2]).",
    "The passages do not give a default (the example sets `--force`\u00b2).",
    # A second clause after the absence, after a colon, a dash or "because", is a statement.
    "The documentation does not describe a separate read timeout: `timeout` applies to"
    " connecting and reading alike [1].",
    "The docs do not mention a retry setting — the client always retries three times [1].",
    "The passages do not say that directly, because the limit is set by GitLab [2].",
    # A bare noun is the product's own word, not the material the model was given.
    "Sources do not include archived projects by default [1].",
    # A premise the passages contradict is an answer.
    "Colours are not supported [1].",
    # "It" names nothing the passages hold: the thing asked about may not do it.
    "It does not say which colours exist [1].",
    "```sh\nwidgetctl install\n```\nThe passages do not say more.",
    "",
]


@pytest.mark.parametrize("text", NON_ANSWERS)
def test_a_draft_saying_only_that_the_material_does_not_tell_is_no_answer(text):
    assert is_non_answer(text)


@pytest.mark.parametrize("text", ANSWERS)
def test_a_draft_with_a_statement_of_its_own_is_an_answer(text):
    assert not is_non_answer(text)


def test_a_reason_is_shown_without_its_passage_markers():
    assert without_markers("Not covered [1]. Nor is this [^2][1-3].") == "Not covered. Nor is this."


@pytest.mark.parametrize("dash", ["-", "\u2012", "\u2013", "\u2014", "\u2212"])
def test_a_range_is_taken_out_whichever_dash_it_is_written_with(dash):
    # Every dash the checks read a range [1-3] with: none is a second clause, none is shown.
    text = f"The passages do not say how to colour a widget [1{dash}3]."
    assert is_non_answer(text)
    assert without_markers(text) == "The passages do not say how to colour a widget."


@pytest.mark.parametrize(
    "between",
    ["-", "\u2013", " \u2014 ", "\u2014", " to ", " through ", ", ", " and ", " or ", " & "],
)
def test_a_range_or_list_written_between_two_markers_is_taken_out_whole(between):
    # Taken out one at a time, "[1]—[3]" left a dash that read as a second clause, "Passage
    # [1]-[3] does not say" a "Passage 1-" that named no material: each was shown as an answer.
    # So was "Passage [1] and [3] does not say", and "[1] and [3]." left "widget and." in a reason.
    text = f"The passages do not say how to colour a widget [1]{between}[3]."
    assert is_non_answer(text)
    assert without_markers(text) == "The passages do not say how to colour a widget."
    numbered = f"Passage [1]{between}[^3] does not say how to colour widgets."
    assert is_non_answer(numbered)
    assert without_markers(numbered) == f"Passage 1{between}3 does not say how to colour widgets."


@pytest.mark.parametrize("between", [" - ", " \u2013 ", "\u2014", " \u2014 "])
def test_a_range_written_between_two_numbers_in_parentheses_is_no_second_clause(between):
    # The checks read "(1) – (3)." closing a sentence as passages 1 to 3: its dash opens nothing.
    assert is_non_answer(f"The passages do not say how to colour a widget (1){between}(3).")
    # Where the second number goes on to words of its own, the dash opens a clause as before.
    assert not is_non_answer(f"The passages do not give a default (1){between}(2) sets it to 3.")


@pytest.mark.parametrize("between", [" - ", " \u2013 ", "\u2014", " \u2014 "])
def test_a_range_between_two_numbers_in_parentheses_closing_a_clause_is_no_second_clause(between):
    # The checks read "(1) – (3)," as passages 1 to 3 wherever punctuation follows it, as they
    # read "[1] – [3],": its dash was read as a second clause, and the decline shown as an answer.
    for goes_on in ("; they only cover tuning [1].", ", or how to tune it."):
        assert is_non_answer(
            f"The passages do not say how to colour a widget (1){between}(3){goes_on}"
        )
    # What follows is read as it is after "[1] – [3]": a clause of its own makes an answer.
    assert not is_non_answer(f"The passages do not give a default (1){between}(3); it is 3 [1].")


def test_a_marker_numbering_the_passage_it_follows_is_kept_as_its_number_in_a_reason():
    # "Passage does not say" would leave the reader to guess which passage.
    text = "Passage [1] does not say which colours exist. None of the passages [2, 3] do [2]."
    assert without_markers(text) == (
        "Passage 1 does not say which colours exist. None of the passages 2, 3 do."
    )


def test_a_long_list_is_read_once_whatever_closes_it():
    # Each stretch between two commas is read once: read again from each comma, a list of
    # 100,000 items would take minutes, not a fraction of a second.
    items = "red, " * 100_000
    assert is_non_answer(f"The passages do not mention {items}and blue.")
    assert not is_non_answer(f"The passages do not mention {items}and blue, and grey is [1].")
    assert not is_non_answer("The passages do not mention red" + ", and" * 100_000 + ".")
    assert is_non_answer("The passages do not say whether " + "a, b, and " * 50_000 + "c are.")


def test_a_clause_describing_the_passages_is_read_once_however_long():
    # Read again from each word or space, each of these would take minutes.
    assert is_non_answer("The passages do not say X; they only cover " + "a " * 100_000 + "[1].")
    assert is_non_answer("The passages do not say X; they cover" + " " * 200_000 + "x.")
    assert is_non_answer("The passages do not say whether it can" + ", or how" * 100_000 + ".")
    assert not is_non_answer("The passages do not say X" + "; they" * 100_000 + ".")
    assert not is_non_answer("The passages do not say X; they cover " + "a " * 100_000 + "`b`.")


def test_asides_are_read_once_however_many_there_are():
    # Each character is read from one "(" at most: read from each, these would take minutes.
    assert is_non_answer("The passages do not mention " + "(see [1]) " * 50_000 + "colours.")
    assert is_non_answer("The passages do not mention " + "(" * 100_000 + "colours.")
    assert not is_non_answer("The passages do not mention " + "(" * 100_000 + "`red` [1]).")
