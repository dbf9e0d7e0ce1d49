"""What the slash commands show: within Discord's limits, citations whole, untrusted text inert."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.answer.composer import Answer
from bot.answer.grounding import settle
from bot.answer.outcome import Citation, Decline, Outcome
from bot.config import RateLimit
from bot.discord_format.answers import (
    answer_reply,
    decline_reply,
    error_reply,
    feedback_id,
    outcome_reply,
    parse_feedback_id,
    passages_reply,
    rate_limited_reply,
)
from bot.discord_format.listings import (
    LISTED_NAME_LIMIT,
    listing_notice,
    parse_sources_page_id,
    source_reply,
    sources_reply,
    status_reply,
    unreadable_reply,
)
from bot.discord_format.message import (
    Button,
    Embed,
    Reply,
    discord_len,
    escape_markdown,
    fit_lines,
    shorten_markdown,
)
from bot.engine import SourceStatus
from bot.errors import EmptyIndexError, ProviderError, ShuttingDown, StoreError, UsageError
from bot.index.catalog import ListingFailure, SourceState
from bot.index.retriever import Result
from bot.unseen import visible

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
CITATION_LINE = re.compile(r"\*\*\[(\d+)\]\*\* (\[.+\]\(https?://[^\s()<>]+\)|.+ \(.+\))")


def passage(
    n: int, text: str = "Body.", heading: str | None = None, url: str | None = None
) -> Result:
    return Result(
        chunk_id=n, document_id=n, score=1.0, repo="widgets", path=f"docs/p{n}.md", kind="doc",
        heading=heading or f"Part {n}", heading_path=("Guide", heading or f"Part {n}"),
        anchor=f"part-{n}", symbol="", start_line=1, end_line=5,
        url=url if url is not None else f"https://widgets.example/p{n}/#part-{n}",
        commit="abc", text=text, indexed_at="2026-11-30T00:00:00+00:00",
    )  # fmt: skip


def outcome(passages=(), **changes) -> Outcome:
    base = Outcome(
        "Q?", "q", "answered", "An answer [1].", (), None, (), "anthropic", "claude-haiku-4-5",
        tuple(passages), answer_id=7,
    )  # fmt: skip
    return replace(base, **changes)


def cite(p: Result, n: int) -> Citation:
    return Citation(n, p.url, p.repo, p.path, p.heading, p.symbol)


def assert_within_limits(reply: Reply) -> None:
    assert discord_len(reply.content) <= 2000 and len(reply.embeds) <= 10
    assert all(
        discord_len(e.description) <= 4096 and discord_len(e.title) <= 256 for e in reply.embeds
    )
    assert sum(e.size() for e in reply.embeds) <= 6000


def test_an_answer_has_its_text_its_numbered_sources_and_feedback_buttons():
    ps = [passage(1), passage(2)]
    reply = answer_reply(outcome(ps, citations=(cite(ps[1], 2), cite(ps[1], 2), cite(ps[0], 1))))
    answer, sources = reply.embeds
    assert (
        answer.description == "An answer [1]." and answer.footer == "Answered by claude-haiku-4-5"
    )
    assert sources.description.splitlines() == [  # in the order cited, each once
        "**[2]** [widgets · docs/p2.md — Part 2](https://widgets.example/p2/#part-2)",
        "**[1]** [widgets · docs/p1.md — Part 1](https://widgets.example/p1/#part-1)",
    ]
    assert [b.custom_id for b in reply.buttons] == ["fb:7:y", "fb:7:n"]
    assert reply.content == "" and not reply.ephemeral


def test_a_stale_source_adds_a_caveat():
    reply = answer_reply(
        outcome([passage(1)], citations=(cite(passage(1), 1),), stale=("widgets",))
    )
    assert reply.content.startswith("⚠ widgets has not been refreshed within the refresh interval")


def test_citations_that_do_not_fit_are_left_out_whole_and_counted():
    long_heading = "A very long heading about frobnication " * 4
    ps = [passage(n, heading=f"{long_heading}{n}") for n in range(1, 31)]
    reply = answer_reply(outcome(ps, citations=tuple(cite(p, n) for n, p in enumerate(ps, 1))))
    assert_within_limits(reply)
    lines = reply.embeds[1].description.splitlines()
    *shown, more = lines
    assert all(CITATION_LINE.fullmatch(line) for line in shown)
    assert more == f"…and {30 - len(shown)} more sources"
    assert [int(CITATION_LINE.fullmatch(line).group(1)) for line in shown] == list(
        range(1, len(shown) + 1)
    )


def test_a_local_source_is_cited_by_its_location():
    p = passage(1, url="widgets/docs/p1.md#L1-L5")
    reply = answer_reply(outcome([p], citations=(cite(p, 1),)))
    assert reply.embeds[1].description == (
        "**[1]** widgets · docs/p1.md — Part 1 (widgets/docs/p1.md\\#L1\\-L5)"
    )


def test_an_overlong_answer_is_cut_at_a_paragraph_with_a_note_and_an_open_fence_closed():
    text = "First paragraph.\n\n```toml\n" + "depth = 7\n" * 800 + "```\n\nLast."
    reply = answer_reply(outcome([passage(1)], answer=text, citations=(cite(passage(1), 1),)))
    assert_within_limits(reply)
    shown = reply.embeds[0].description
    assert shown.endswith(
        "*The answer was too long to show whole; ask something narrower for the rest.*"
    )
    assert shown.count("```") % 2 == 0  # the code block that was cut is closed


@pytest.mark.parametrize("fence", ["`" * 30, "~" * 12, "`" * 5000])
def test_an_overlong_answer_in_a_long_fence_is_cut_to_fit_with_that_fence_closed(fence):
    text = fence + "\n" + "x" * 8000
    reply = answer_reply(outcome([passage(1)], answer=text, citations=(cite(passage(1), 1),)))
    assert_within_limits(reply)
    shown = reply.embeds[0].description
    assert shown.endswith("ask something narrower for the rest.*")
    if len(fence) * 2 < 4000:  # room for the fence twice: the cut keeps text inside it
        body = shown.rsplit("\n\n", 1)[0]
        assert body.startswith(fence + "\nxxx") and body.endswith("\n" + fence)
    else:  # no room for any of it: just the note
        assert "xxx" not in shown


@settings(max_examples=100, deadline=None)
@given(
    fence=st.sampled_from("`~"),
    length=st.integers(min_value=3, max_value=5000),
    before=st.text(max_size=3000),
    limit=st.integers(min_value=100, max_value=4096),
)
def test_a_cut_inside_a_code_block_of_any_fence_fits_its_limit(fence, length, before, limit):
    text = before + "\n" + fence * length + "python\n" + "code line\n" * 800
    assert discord_len(shorten_markdown(text, limit, "(cut)")) <= limit


def test_mentions_in_an_answer_are_defused_but_its_markdown_kept():
    reply = answer_reply(
        outcome(
            [passage(1)],
            answer="@everyone, <@123> and @here: run `x`.",
            citations=(cite(passage(1), 1),),
        )
    )
    assert reply.embeds[0].description == "@\u200beveryone, <@\u200b123> and @\u200bhere: run `x`."


def test_hostile_labels_and_urls_cannot_break_out_of_their_link():
    p = passage(1, heading="x](https://evil.example) [@everyone", url="https://w.example/a (b)")
    line = answer_reply(outcome([p], citations=(cite(p, 1),))).embeds[1].description
    assert "](https://evil.example)" not in line
    assert line.endswith("(https://w.example/a%20%28b%29)")
    assert "@\u200beveryone" in line


@pytest.mark.parametrize(
    ("kind", "lead", "reason_shown"),
    [
        ("nothing_matched", "couldn't find anything", False),
        ("composer_declined", "doesn't answer that", True),
        ("ungrounded", "couldn't check every part", True),
    ],
)
def test_each_decline_is_polite_says_what_was_searched_and_that_the_gap_was_recorded(
    kind, lead, reason_shown
):
    ps = [] if kind == "nothing_matched" else [passage(1), passage(2), passage(1)]
    o = outcome(ps, kind="declined", answer=None, decline=Decline(kind, "Reason given."))
    reply = outcome_reply(o, ["widgets", "gadgets"])
    assert lead in reply.content
    assert ("Why: Reason given." in reply.content) is reason_shown
    if ps:
        assert (
            "Closest passages searched: widgets · docs/p1.md; widgets · docs/p2.md" in reply.content
        )
    else:
        assert "Sources searched: widgets; gadgets" in reply.content
    assert "recorded the question as a documentation gap" in reply.content
    assert reply.buttons == () and reply.embeds == ()


def test_a_decline_the_index_could_not_record_says_so_rather_than_that_it_was():
    declined = outcome(
        [passage(1)], kind="declined", answer=None, decline=Decline("composer_declined", "No.")
    )
    said = decline_reply(replace(declined, unrecorded="The index is busy.")).content
    assert "I couldn't record the question as a documentation gap this time" in said
    assert "I've recorded" not in said
    answered = answer_reply(replace(outcome([passage(1)]), answer_id=None, unrecorded="busy"))
    assert answered.buttons == ()  # no record to vote on


def test_a_decline_reason_shows_no_address_a_passage_does_not_give_and_links_none():
    why = "Not covered; see https://evil.example/fix or https://widgets.example/p1/ instead."
    draft = Answer("", (), True, why)
    declined = settle("Q?", "q", [passage(1)], (), "anthropic", "claude-haiku-4-5", draft)
    reply = decline_reply(declined)
    assert "evil.example" not in reply.content
    assert "see \\(a link no passage gives was removed\\) or" in reply.content
    # The address a passage gives is shown as text: Discord links only a written-out
    # scheme (https://), and the reason's is escaped, so nothing in it becomes a link.
    assert "https\\://widgets.example/p1/" in reply.content
    assert re.search(r"https?://", reply.content) is None


def test_a_decline_with_a_huge_reason_and_many_sources_stays_within_the_content_limit():
    o = outcome(kind="declined", answer=None, decline=Decline("composer_declined", "why " * 2000))
    reply = decline_reply(o, [f"group/project-{n}" for n in range(500)])
    assert_within_limits(reply)
    assert re.search(r"and \d+ more\n\nI've recorded", reply.content)


def test_passages_are_linked_embeds_that_fit_and_the_rest_are_counted():
    ps = [passage(n, text="line of text\n" * 400) for n in range(1, 13)]
    reply = passages_reply(outcome(ps, kind="passages", answer=None, model=None))
    assert_within_limits(reply)
    assert reply.embeds[0].title == "[1] widgets · docs/p1.md — Part 1"
    assert reply.embeds[0].url == "https://widgets.example/p1/#part-1"
    assert re.search(r"\d+ more passages did not fit", reply.content)
    counted = re.search(r"(\d+) more", reply.content)
    assert counted is not None and int(counted.group(1)) == len(ps) - len(reply.embeds)
    few = passages_reply(outcome(ps[:3], kind="passages", answer=None, model=None))
    assert len(few.embeds) == 3 and "did not fit" not in few.content


def test_rate_limit_and_errors_are_ephemeral_and_say_what_to_do():
    limited = rate_limited_reply(41.2, RateLimit(3, 60))
    assert limited.ephemeral and limited.content.endswith(
        "3 questions every 1m per person. Try again in 42 s."
    )
    provider = error_reply(ProviderError("The API timed out."), "123")
    assert provider.ephemeral and "Try again in a minute" in provider.content
    assert "reference 123" in provider.content.replace("\\", "")
    assert "restarting" in error_reply(ShuttingDown(), "1").content
    assert "too long" in error_reply(UsageError("The question is too long."), "1").content
    unexpected = error_reply(None, "99")
    assert "tell a moderator" in unexpected.content and "reference 99" in unexpected.content


def test_errors_naming_server_paths_are_not_repeated_in_the_channel():
    empty = error_reply(
        EmptyIndexError("The index at /srv/secret/index.sqlite holds nothing."), "5"
    )
    assert "/srv/secret" not in empty.content and "index needs building" in empty.content
    broken = error_reply(StoreError("Searching the index at /srv/secret/x failed."), "6")
    assert "/srv/secret" not in broken.content and "could not be read" in broken.content


def test_a_listing_the_index_could_not_be_read_for_says_what_it_was_doing_and_what_to_do():
    told = unreadable_reply("show the index status", "77")
    assert told.ephemeral
    assert told.content.startswith("I can't show the index status right now: the index could")
    assert "Try again in a minute" in told.content and "tell a moderator" in told.content
    assert told.content.endswith("(reference 77).")
    assert "answer" not in told.content  # nothing was asked


def test_feedback_ids_round_trip_and_anything_else_is_not_a_vote():
    assert parse_feedback_id(feedback_id(42, True)).helpful is True
    assert parse_feedback_id(feedback_id(42, False)).answer_id == 42
    for junk in (
        "fb:42",
        "fb:x:y",
        "fb:42:maybe",
        "src:page:2",
        "fb:" + "9" * 30 + ":y",
        "fb:-1:y",
    ):
        assert parse_feedback_id(junk) is None


def test_a_reply_that_breaks_a_limit_cannot_be_built():
    with pytest.raises(ValueError, match="content of 2001"):
        Reply("x" * 2001)
    with pytest.raises(ValueError, match="11 embeds"):
        Reply("", tuple(Embed("d") for _ in range(11)))
    with pytest.raises(ValueError, match="together"):
        Reply("", (Embed("d" * 4000), Embed("d" * 2001)))
    with pytest.raises(ValueError, match="nothing to show"):
        Reply("")
    with pytest.raises(ValueError, match="button"):
        Reply("x", buttons=(Button("", "label"),))
    assert discord_len("😀") == 2  # Discord counts UTF-16 code units


def test_escaping_makes_markdown_and_mentions_literal():
    assert escape_markdown("**bold** [x](y) `c` @everyone <@1>") == (
        "\\*\\*bold\\*\\* \\[x\\]\\(y\\) \\`c\\` @\u200beveryone \\<@\u200b1\\>"
    )


def test_characters_that_act_unseen_are_shown_as_escapes_and_other_text_is_kept():
    assert visible("if admin\u202e\u2066 // check\u2069\u2066") == (
        "if admin\\u202e\\u2066 // check\\u2069\\u2066"
    )
    assert visible("a\x1b[2Jb\x85c\u200fd\ufeffe") == "a\\x1b[2Jb\\x85c\\u200fd\\ufeffe"
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "ignore this")
    assert visible(f"ok{hidden}") == "ok" + "".join(f"\\U000e00{ord(c):02x}" for c in "ignore this")
    assert visible("line\r\nnext\ttab") == "line\nnext\ttab"
    kept = (
        "café naïve 日本語 مرحبا עברית क्षि"  # accents, CJK, right-to-left scripts, a conjunct
        " 👩\u200d👩\u200d👧 👍🏽 ❤\ufe0f 1\ufe0f\u20e3 🇫🇷"  # ZWJ, skin tone, variation, keycap
        " \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"  # Scotland
        " می\u200cخواهم"  # the zero-width non-joiner Persian needs
    )
    assert visible(kept) == kept


_UNSEEN = "\u202e\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061c\x1b\x07\x9b\u2060\ufeff\U000e0041"
_ACTS_UNSEEN = re.compile(f"[{_UNSEEN}]")
hostile = st.text(alphabet=st.sampled_from(list(_UNSEEN) + list("ab @<>*[]()é日👍")), max_size=60)


def _everything_shown(reply: Reply) -> str:
    parts = [reply.content, *(b.label for b in reply.buttons)]
    for e in reply.embeds:
        parts += [e.title, e.description, e.url, e.footer]
    return "\n".join(parts)


def _every_reply(text: str, name: str) -> list[Reply]:
    """Every kind of reply, with ``text`` and ``name`` in every place they can be shown."""
    p = passage(1, text=text, heading=text, url=f"https://widgets.example/{text}")
    p = replace(p, repo=name, path=text, symbol=text)
    local = replace(p, url=f"file://{text}")
    answered = outcome([p], answer=text or "x", citations=(cite(p, 1),), stale=(name,))
    declined = outcome(
        [p], kind="declined", answer=None, decline=Decline("composer_declined", text)
    )
    nothing = outcome(kind="declined", answer=None, decline=Decline("nothing_matched", ""))
    source = state(
        name or "x", "unresolved", clause=text, detail=text, location=text,
        web_url=f"https://gitlab.example/{text}", last_error=text, release_error=text,
    )  # fmt: skip
    return [
        answer_reply(answered),
        answer_reply(outcome([local], answer="x", citations=(cite(local, 1),))),
        decline_reply(declined),
        decline_reply(nothing, [name]),
        passages_reply(replace(answered, kind="passages", answer=None, model=None)),
        sources_reply([source]),
        source_reply(source.name, [source], NOW),
        source_reply(text or "y", [source], NOW),
        status_reply([SourceStatus(source, 3600, True)], "none", None, NOW),
        error_reply(UsageError(text), "1"),
    ]


@settings(max_examples=60, deadline=None)
@given(text=hostile, name=hostile)
def test_no_reply_shows_a_character_that_acts_unseen(text, name):
    for reply in _every_reply(text, name):
        assert not _ACTS_UNSEEN.search(_everything_shown(reply)), reply


# An escape left unfinished by a cut: ``\u20`` of ``\u202e``.
_CUT_ESCAPE = re.compile(r"\\(?:x[0-9a-f]?|u[0-9a-f]{0,3}|U[0-9a-f]{0,7})(?![0-9a-f])")
long_hostile = st.text(alphabet=st.sampled_from([*_UNSEEN, "a", " "]), min_size=150, max_size=900)


@settings(max_examples=40, deadline=None)
@given(text=long_hostile, name=long_hostile)
def test_no_reply_cuts_long_text_inside_an_escape(text, name):
    for reply in _every_reply(text, name):
        assert_within_limits(reply)
        shown = _everything_shown(reply)
        assert not _CUT_ESCAPE.search(shown), _CUT_ESCAPE.search(shown)


def test_a_status_reason_of_unusual_characters_stays_as_short_as_a_plain_one():
    source = state("widgets", "unresolved", detail="\u202e" * 300, last_error="\u2066" * 300)
    line = status_reply([SourceStatus(source, 3600, False)], "none", None, NOW)
    reason = line.embeds[0].description.splitlines()[-1]
    why = reason[reason.index("(") + 1 : reason.index("), answered from")]
    error = reason[reason.index("last error: ") + len("last error: ") :]
    assert discord_len(why) <= 200 and why.endswith("…"), why
    assert discord_len(error) <= 200 and error.endswith("…"), error


def test_fit_lines_never_cuts_a_line():
    assert fit_lines(["aaaa", "bbbb", "cccc"], 12, lambda k: f"+{k}") == ("aaaa\nbbbb\n+1", 1)
    assert fit_lines(["aaaa", "bbbb", "cccc"], 11, lambda k: f"+{k}") == ("aaaa\n+2", 2)
    assert fit_lines(["aaaa", "bbbb"], 8, lambda k: f"+{k}", sep="; ") == ("aaaa; +1", 1)
    assert fit_lines(["a", "b"], 100, lambda k: "never") == ("a\nb", 0)


@settings(max_examples=150, deadline=None)
@given(
    answer=st.text(min_size=1, max_size=9000),
    labels=st.lists(st.text(min_size=0, max_size=300), min_size=1, max_size=40),
    stale=st.lists(st.text(min_size=1, max_size=80), max_size=30),
)
def test_any_answer_fits_and_shows_only_whole_citations(answer, labels, stale):
    ps = [passage(n, heading=label) for n, label in enumerate(labels, 1)]
    o = outcome(
        ps,
        answer=answer,
        citations=tuple(cite(p, n) for n, p in enumerate(ps, 1)),
        stale=tuple(stale),
    )
    reply = answer_reply(o)
    assert_within_limits(reply)
    lines = reply.embeds[1].description.split("\n")
    shown = lines[:-1] if lines[-1].startswith("…and ") else lines
    assert len(shown) >= 1
    for line in shown:
        m = re.fullmatch(
            r"\*\*\[(\d+)\]\*\* \[(.*)\]\((https://widgets\.example/p\d+/#part-\d+)\)", line, re.S
        )
        assert m, line
        assert m.group(3) == ps[int(m.group(1)) - 1].url


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=6000), limit=st.integers(min_value=100, max_value=4096))
def test_shortened_markdown_fits_its_limit(text, limit):
    shown = shorten_markdown(text, limit, "(cut)")
    assert discord_len(shown) <= limit
    if discord_len(text) <= limit:
        assert shown == text


def state(name: str, verdict: str = "admitted", **changes) -> SourceState:
    base = SourceState(
        name=name, origin="local", location=f"/srv/{name}", verdict=verdict, clause="local",
        detail="a repository on disk", web_url=None, site_url=None, default_branch="main",
        branch_commit="0123456789abcdef", release_tag=None, release_commit=None, corpus_version=1,
        checked_at=None, indexed_at="2026-11-30T11:00:00+00:00",
        refreshed_at="2026-11-30T11:00:00+00:00", last_error=None, last_error_at=None,
        documents=3, chunks=12,
    )  # fmt: skip
    return replace(base, **changes)


def test_sources_are_paged_ten_at_a_time_with_buttons_that_carry_the_page():
    states = [state(f"p{n:02d}") for n in range(23)]
    first = sources_reply(states)
    assert first.embeds[0].title == "Sources — page 1 of 3"
    assert [(b.custom_id, b.disabled) for b in first.buttons] == [
        ("src:page:0", True),
        ("src:page:2", False),
    ]
    last = sources_reply(states, 99)  # a page past the end shows the last one
    assert (
        last.embeds[0].title == "Sources — page 3 of 3"
        and len(last.embeds[0].description.splitlines()) == 3
    )
    assert last.buttons[1].disabled
    assert parse_sources_page_id("src:page:3") == 3 and parse_sources_page_id("src:page:x") is None
    assert sources_reply([state("only")]).buttons == ()
    only = sources_reply([state("only")])
    assert only.embeds[0].title == "Sources"  # one page needs no page number
    assert only.content.startswith("1 source: 1 indexed, 0 rejected, 0 unresolved.")
    mixed = [state("a"), state("b", "rejected"), state("c", "unresolved"), state("d", "rejected")]
    assert sources_reply(mixed).content.startswith(
        "4 sources: 1 indexed, 2 rejected, 1 unresolved."
    )
    assert "No sources are known yet" in sources_reply([]).content


odd_name = st.text(alphabet=st.sampled_from(list(_UNSEEN) + list("a -_*\\`|[]()<>#:/é日👍")))


@settings(max_examples=150, deadline=None)
@given(
    names=st.lists(
        st.one_of(odd_name.filter(bool), st.text(st.sampled_from("a -\\*"), min_size=150)),
        min_size=1,
        max_size=12,
    ),
    detail=st.text(st.sampled_from("x /*"), max_size=400),
)
def test_every_listed_name_is_shortened_inside_balanced_bold_markup(names, detail):
    reply = sources_reply([state(name, detail=detail) for name in names])
    assert_within_limits(reply)
    for line in reply.embeds[0].description.splitlines():
        unescaped = re.sub(r"\\.", "", line)  # what is left acts as markup
        assert unescaped.startswith("**") and unescaped.count("*") == 4, line
        name = line[2 : line.index("** — ")]
        assert discord_len(name) <= LISTED_NAME_LIMIT, line


def test_a_long_listed_name_is_cut_before_it_is_escaped():
    [line] = sources_reply([state("a-" * 200)]).embeds[0].description.splitlines()
    assert line.startswith("**" + "a\\-" * 59 + "a…** — admitted by local: a repository")
    [line] = sources_reply([state("\u202e" * 100)]).embeds[0].description.splitlines()
    assert line.startswith("**" + "\\\\u202e" * 25 + "…** — admitted by local")


def test_one_source_explained_and_an_unknown_one_gets_close_names():
    rejected = state(
        "acme/private",
        "rejected",
        clause="visibility",
        detail="GitLab reports it private",
        web_url="https://gitlab.example/acme/private",
    )
    reply = source_reply("ACME/private", [rejected, state("acme/public")], NOW)
    [embed] = reply.embeds
    assert embed.url == "https://gitlab.example/acme/private"
    assert (
        "**Not indexed**: the visibility rule rejected it: GitLab reports it private"
        in embed.description
    )
    assert "**Last refreshed:** 1h ago" in embed.description
    unknown = source_reply("acme/publik", [rejected, state("acme/public")], NOW)
    assert "Did you mean **acme/public**" in unknown.content


FAILED_LISTING = ListingFailure(
    "acme",
    "GitLab could not be reached for /groups/acme/projects through "
    "https://bot:hunter2@gitlab.example/api/v4?private_token=glpat-secret: connection refused.",
    "2026-11-30T09:00:00+00:00",
)


def test_a_failed_listing_is_said_first_with_what_it_said_and_when_and_no_credential():
    project = state("acme/widgets", origin="gitlab", clause="public")
    notice = listing_notice(FAILED_LISTING, [project, state("tools")], NOW)
    listed = sources_reply([project, state("tools")], notice=notice)
    assert listed.content.startswith(
        "⚠ GitLab's listing of **acme** failed in the last build (3h ago)"
    )
    assert "listed as the last listing that worked left them" in listed.content
    assert "It said: GitLab could not be reached for /groups/acme/projects through " in notice
    # Escaped as all shown text is: the redacted address and the error's own full stop.
    assert "https\\://\\*\\*\\*@gitlab.example/api/v4?\\*\\*\\*\\: connection refused. An" in notice
    assert "hunter2" not in notice and "glpat" not in notice
    assert "`gitlab.url.api`, `GITLAB_TOKEN`" in notice
    assert listed.content.endswith(
        "2 sources: 2 indexed, 0 rejected, 0 unresolved. `/sources name:` explains one of them."
    )
    nothing = sources_reply([], notice=listing_notice(FAILED_LISTING, [], NOW))
    assert "none of its projects is known yet" in nothing.content
    assert "nothing has been discovered" not in nothing.content


def test_one_source_shows_a_failed_listing_when_it_is_absent_or_from_gitlab_only():
    project = state("acme/widgets", origin="gitlab", clause="public")
    states = [project, state("tools")]
    notice = listing_notice(FAILED_LISTING, states, NOW)
    absent = source_reply("acme/gadgets", states, NOW, notice).content
    assert absent.startswith("No source called **acme/gadgets** is known to the index.\n\n⚠ ")
    [embed] = source_reply("acme/widgets", states, NOW, notice).embeds
    assert embed.description.startswith("⚠ GitLab's listing of **acme** failed")
    [embed] = source_reply("tools", states, NOW, notice).embeds
    assert "GitLab" not in embed.description


def test_a_huge_listing_error_is_cut_short_and_every_reply_stays_within_limits():
    failure = replace(FAILED_LISTING, group="g" * 300, error="`@everyone` " * 2000)
    states = [state(f"acme/p{n:02d}", origin="gitlab") for n in range(12)]
    notice = listing_notice(failure, states, NOW)
    assert discord_len(notice) < 1000
    for reply in (
        sources_reply(states, 2, notice),
        source_reply("acme/p01", states, NOW, notice),
        source_reply("x" * 200, states, NOW, notice),
    ):
        assert_within_limits(reply)
        assert notice in reply.content + "".join(e.description for e in reply.embeds)


def test_status_says_first_that_the_listing_failed_however_fresh_every_source_looks():
    fresh = replace(
        state("acme/widgets", origin="gitlab"), refreshed_at="2026-11-30T11:55:00+00:00"
    )
    statuses = [SourceStatus(fresh, 3600, False)] * 80  # more than fit: the notice still does
    notice = listing_notice(FAILED_LISTING, [fresh], NOW)
    reply = status_reply(statuses, "none", None, NOW, notice=notice)
    assert_within_limits(reply)
    [embed] = reply.embeds
    assert embed.description.startswith(f"{notice}\n\n**Answers:** none")
    assert "failed in the last build (3h ago)" in notice
    assert "hunter2" not in embed.description and "glpat" not in embed.description
    assert "**Last refresh:** 5m ago" in embed.description
    assert "GitLab" not in status_reply(statuses, "none", None, NOW).embeds[0].description


def test_two_sources_apart_by_letter_case_alone_are_told_apart_by_the_exact_spelling():
    # Two repositories on a case-sensitive filesystem; the first listed is not the one asked.
    upper = state("Tools", location="/srv/a/Tools")
    lower = state("tools", location="/srv/b/tools")
    for asked, meant in (("tools", lower), ("Tools", upper)):
        [embed] = source_reply(asked, [upper, lower], NOW).embeds
        assert embed.title == meant.name and f"**Where:** {meant.location}" in embed.description
    reply = source_reply("TOOLS", [upper, lower], NOW)
    assert not reply.embeds
    assert reply.content == (
        "More than one source is called **TOOLS**, in letter case alone: **Tools**, "
        "**tools**. Give the name spelled exactly as one of them is."
    )


def test_status_puts_failing_then_stale_sources_first_and_shows_totals_and_provider():
    statuses = [
        SourceStatus(state("fresh"), 6 * 3600, False),
        SourceStatus(
            state("old", refreshed_at=(NOW - timedelta(days=2)).isoformat()), 6 * 3600, True
        ),
        SourceStatus(state("broken", last_error="clone failed"), 6 * 3600, False),
    ]
    text = status_reply(statuses, "anthropic", "claude-haiku-4-5", NOW).embeds[0].description
    assert "**Answers:** anthropic (`claude-haiku-4-5`)" in text
    assert "**Totals:** 3 sources, 9 documents, 36 passages; 1 stale, 1 failing" in text
    assert "**Last refresh:** 1h ago" in text
    lines = text.splitlines()[4:]
    assert lines == [
        "✖ **broken**: refreshed 1h ago, every 6h; last error: clone failed",
        "⚠ **old**: refreshed 2d ago, every 6h; stale",
        "✓ **fresh**: refreshed 1h ago, every 6h",
    ]


def test_status_with_many_unresolved_sources_keeps_each_reason_short_and_fits():
    statuses = [
        SourceStatus(
            state(f"gone-{n:03d}", "unresolved", clause="missing", detail="x" * 5000),
            3600,
            False,
        )
        for n in range(300)
    ]
    reply = status_reply(statuses, "none", None, NOW)
    assert_within_limits(reply)
    text = reply.embeds[0].description
    assert "0 failing, 300 unresolved" in text
    first = text.splitlines()[4]
    assert first.startswith("⚠ **gone\\-000**: refreshed 1h ago, every 1h; unresolved by missing (")
    assert first.endswith("), answered from its last index") and len(first) < 400


def test_status_says_an_unresolved_source_without_an_index_was_never_indexed():
    never = state("gone", "unresolved", clause="missing", detail="/srv/gone does not exist")
    never = replace(never, refreshed_at=None, indexed_at=None, documents=0, chunks=0)
    text = status_reply([SourceStatus(never, 3600, True)], "none", None, NOW).embeds[0].description
    assert text.splitlines()[2] == "**Last refresh:** never"  # no source was ever refreshed
    assert text.splitlines()[4] == (
        "⚠ **gone**: refreshed never, every 1h; unresolved by missing "
        "(/srv/gone does not exist), never indexed; stale"
    )


def test_status_with_many_sources_summarises_the_fresh_ones():
    statuses = [SourceStatus(state(f"group/project-{n:03d}"), 3600, False) for n in range(400)]
    reply = status_reply(statuses, "none", None, NOW)
    assert_within_limits(reply)
    assert re.search(
        r"…and \d+ more \(`python -m bot.cli index status` lists all\)$",
        reply.embeds[0].description,
    )


def test_status_shortens_a_long_source_name_so_every_source_keeps_its_line():
    statuses = [
        SourceStatus(state("a-" * 2000, last_error="clone failed"), 3600, False),
        SourceStatus(state("\u202e" * 700), 3600, True),
        SourceStatus(state("widgets"), 3600, False),
    ]
    reply = status_reply(statuses, "none", None, NOW)
    assert_within_limits(reply)
    lines = reply.embeds[0].description.splitlines()[4:]
    assert [line[:2] for line in lines] == ["✖ ", "⚠ ", "✓ "]  # none summarised as "more"
    for line in lines:
        name = line[4 : line.index("**: refreshed")]
        assert discord_len(name) <= LISTED_NAME_LIMIT, line
    assert lines[0].startswith("✖ **" + "a\\-" * 59 + "a…**: refreshed 1h ago")
    assert lines[1].startswith("⚠ **" + "\\\\u202e" * 25 + "…**: refreshed 1h ago")


def test_status_in_hybrid_mode_says_how_many_passages_have_no_vector_and_what_to_do():
    statuses = [SourceStatus(state("widgets"), 3600, False)]
    text = status_reply(statuses, "none", None, NOW, unembedded=5).embeds[0].description
    assert text.splitlines()[3] == (
        "⚠ **Without vectors:** 5 of 12 passages have no vector yet, so questions find them by "
        "their words and names alone. An operator runs `python -m bot.cli index build` to embed "
        "them."
    )
    one = status_reply(statuses, "none", None, NOW, unembedded=1).embeds[0].description
    assert "1 of 12 passages has no vector yet" in one
    for nothing_missing in (0, None):  # every passage embedded, or bm25 mode
        shown = status_reply(statuses, "none", None, NOW, unembedded=nothing_missing)
        assert "vector" not in shown.embeds[0].description


def test_one_source_explained_shows_long_texts_cut_short_not_left_out():
    failing = state(
        "widgets",
        "unresolved",
        detail="the forge answered: " + "d" * 5000,
        last_error="fatal: " + "e" * 5000,
        release_error="releases: " + "r" * 5000,
    )
    reply = source_reply("widgets", [failing], NOW)
    assert_within_limits(reply)
    text = reply.embeds[0].description
    assert text.startswith("**Not indexed for now**: the local check could not be completed: the ")
    assert "**Last error:** fatal\\: eee" in text and "**Release lookup:** releases\\: rrr" in text
    assert "**Holds:** 3 documents, 12 passages" in text


def test_an_unknown_source_with_long_close_names_fits():
    long = "group/" + "subgroup-" * 120
    reply = source_reply(long + "x", [state(f"{long}{n}") for n in range(3)], NOW)
    assert_within_limits(reply)
    assert reply.content.count("**group/subgroup\\-subgroup") == 4  # the name, and three close
