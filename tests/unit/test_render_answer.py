"""The `ask --json` object follows the documented contract; terminal text says what it must."""

import json
import logging
import re
import sys
from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from bot import render
from bot.answer.backlog import Gap, GapGroup
from bot.answer.composer import Usage
from bot.answer.outcome import Citation, Decline, Outcome
from bot.index.retriever import Result

CONTRACT = {"question", "outcome", "answer", "citations", "decline", "stale", "provider",
            "model", "passages"}  # fmt: skip


def passage(n: int) -> Result:
    return Result(
        chunk_id=n, document_id=1, score=3.5, repo="widgets", path="docs/guide.md", kind="doc",
        heading=f"Part {n}", heading_path=("Guide", f"Part {n}"), anchor=f"part-{n}", symbol="",
        start_line=1, end_line=5, url=f"https://widgets.example/guide/#part-{n}", commit="abc",
        text="Body.", indexed_at="2026-11-30T00:00:00+00:00",
    )  # fmt: skip


PASSAGES = (passage(1), passage(2))
BASE = Outcome("Q?", '"q"', "passages", None, (), None, ("widgets",), "anthropic",
               "claude-haiku-4-5", PASSAGES)  # fmt: skip


def test_an_answer_has_exactly_the_contract_keys():
    cited = (Citation(2, PASSAGES[1].url, "widgets", "docs/guide.md", "Part 2", ""),)
    outcome = replace(BASE, kind="answered", answer="Do it.", citations=cited, usage=Usage(1, 2))
    data = render.outcome_json(outcome)
    assert set(data) == CONTRACT
    assert data["citations"] == [
        {"n": 2, "url": PASSAGES[1].url, "repo": "widgets", "path": "docs/guide.md",
         "heading": "Part 2", "symbol": ""}
    ]  # fmt: skip
    assert data["decline"] is None and data["stale"] == ["widgets"]
    assert [p["rank"] for p in data["passages"]] == [1, 2]
    text = render.outcome_text(outcome)
    assert "[2] widgets docs/guide.md — Part 2" in text
    assert "Caveat: widgets has not been refreshed" in text


def test_a_decline_has_exactly_the_contract_keys():
    outcome = replace(BASE, kind="declined", decline=Decline("ungrounded", "Cited nothing."))
    data = render.outcome_json(outcome)
    assert set(data) == CONTRACT
    assert data["decline"] == {"kind": "ungrounded", "reason": "Cited nothing."}
    assert data["answer"] is None and data["citations"] == []


def test_passages_only_adds_a_notice():
    data = render.outcome_json(BASE)
    assert set(data) == CONTRACT | {"notice"}
    assert data["outcome"] == "passages" and data["answer"] is None


def test_a_decline_in_a_terminal_says_why_what_was_searched_and_that_it_was_recorded():
    searched = tuple(replace(passage(n), path=f"docs/p{n}.md") for n in range(1, 8))
    ungrounded = Decline("ungrounded", "Cited nothing.")
    text = render.outcome_text(
        replace(BASE, kind="declined", decline=ungrounded, passages=searched)
    )
    assert "Reason: Cited nothing." in text
    assert "Searched: widgets docs/p1.md; widgets docs/p2.md;" in text
    assert text.count("widgets docs/p") == 5 and "docs/p5.md …" in text  # five, then an ellipsis
    assert "Recorded as a documentation gap" in text
    nothing = Decline("nothing_matched", "No passage matched.")
    text = render.outcome_text(replace(BASE, kind="declined", decline=nothing, passages=()))
    assert "Reason:" not in text and "Searched:" not in text
    busy = replace(BASE, kind="declined", decline=nothing, unrecorded="The index is busy.")
    text = render.outcome_text(busy)
    assert "Not recorded as a documentation gap: The index is busy." in text
    assert "Recorded as" not in text
    assert render.outcome_json(busy)["unrecorded"] == "The index is busy."


def test_the_gap_backlog_counts_repeats_and_says_when_there_is_none():
    once = Gap("Where is X?", "composer_declined", "Not covered.", 1, "2026-11-30T10:00:00",
               "2026-11-30T10:00:00", (1,))  # fmt: skip
    twice = replace(once, question="Where is Y?", times=2, question_ids=(2, 3))
    text = render.gaps_text([GapGroup("composer_declined", 3, (twice, once))], None)
    assert text.startswith("3 declined questions, newest first.")
    assert "2026-11-30 10:00 ×2  Where is Y?" in text
    assert "2026-11-30 10:00  Where is X?" in text  # asked once: no count
    assert render.gaps_text([], "2026-11-01") == (
        "No declined questions since 2026-11-01: no documentation gaps recorded."
    )


def test_times_in_the_future_or_missing_read_sensibly():
    assert render.when_text(None) == "never" and render.when_text("") == "never"
    assert render.when_text("2999-01-01T00:00:00+00:00").endswith(" ago")
    assert not render.when_text("2999-01-01T00:00:00+00:00").startswith("-")


# Control characters, the marks and overrides that reorder the text after them, and invisible
# formatting that can carry hidden text; tag characters count but inside a subdivision flag.
_CHARACTER = (
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"
    r"\ufeff\ufff9-\ufffb\U000e0000-\U000e007f]"
)
_FLAG = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")


def unseen(text):
    """Whether ``text`` holds a character that would act unseen."""
    return re.search(_CHARACTER, _FLAG.sub("", text)) is not None


def test_control_characters_are_shown_as_escapes_and_line_ends_kept():
    shown = render.terminal_safe("a\x1b]0;pwned\x07 \x1b[8mhidden\x1b[0m\x9b2J\r\nb\rc\td\n")
    assert shown == "a\\x1b]0;pwned\\x07 \\x1b[8mhidden\\x1b[0m\\x9b2J\nb\\x0dc\td\n"


def test_direction_controls_are_shown_as_escapes_so_nothing_is_reordered():
    shown = render.terminal_safe(
        "api\u202e\u2066lmth.exe\u2069\u202c \u200e\u200f\u061c\u202a\u202b"
    )
    assert shown == "api\\u202e\\u2066lmth.exe\\u2069\\u202c \\u200e\\u200f\\u061c\\u202a\\u202b"


def test_invisible_formatting_is_shown_as_escapes_as_in_discord_and_flags_are_kept():
    scotland = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    shown = render.terminal_safe(f"a\u2060b\ufeffc\U000e0041d\ufff9 {scotland} \u200d")
    assert shown == f"a\\u2060b\\ufeffc\\U000e0041d\\ufff9 {scotland} \u200d"


@given(
    st.text() | st.lists(st.sampled_from("a\x1b\u202e\u2067\u200f\u2060\U000e0041")).map("".join)
)
def test_no_control_character_but_newline_and_tab_reaches_the_terminal(text):
    shown = render.terminal_safe(text)
    assert not unseen(shown)
    if not unseen(text):
        assert shown == text


def test_a_log_message_is_one_line_and_a_traceback_keeps_its_lines():
    try:
        raise ValueError("the repository\nbroke")
    except ValueError:
        failure = sys.exc_info()
    message = "refresh of %s failed"
    record = logging.LogRecord(
        "bot.refresh", logging.ERROR, __file__, 1, message, ("a\nb\r\nc\rd",), failure
    )
    shown = render.TerminalSafeLog("%(levelname)s %(name)s: %(message)s").format(record)
    lines = shown.splitlines()
    assert lines[0] == "ERROR bot.refresh: refresh of a\\x0ab\\x0d\\x0ac\\x0dd failed"
    assert lines[1] == "Traceback (most recent call last):"
    assert lines[-2:] == ["ValueError: the repository", "broke"]
    assert not unseen(shown)


@given(st.text())
def test_a_log_message_never_holds_a_line_break(text):
    record = logging.LogRecord("bot", logging.INFO, __file__, 1, text, None, None)
    shown = render.TerminalSafeLog("%(message)s").format(record)
    assert "\n" not in shown and "\r" not in shown and not unseen(shown)


@given(
    st.recursive(
        st.text() | st.integers() | st.just("\u202e\u2066\u2060\U000e0041") | st.none(),
        lambda inner: st.lists(inner),
    )
)
def test_json_output_holds_no_control_character_and_reads_back_unchanged(data):
    dumped = render.json_text({"key\x9b": data})
    assert not unseen(dumped.replace("\n", " "))
    assert json.loads(dumped) == {"key\x9b": data}
