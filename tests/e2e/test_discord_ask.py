"""/ask end to end: the real bot against the fake Discord, answers from the fake Anthropic API."""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Iterator
from dataclasses import replace

import pytest

from bot.discord_format.message import discord_len
from tests.answering import make_estate
from tests.discord_bot import (
    BotThread,
    HeldWrite,
    ask,
    bot_config,
    build_index,
    wait_for,
    watched,
)
from tests.fakes.anthropic_server import FakeAnthropic, citing, error, tool_call
from tests.fakes.discord import EPHEMERAL, FakeDiscord
from tests.gitrepo import make_repo

USERS = itertools.count(1500000000000000100)
TUNING = "Tuning the frobnicator"
CITATION_LINE = re.compile(r"\*\*\[\d+\]\*\* \[[^\n]+\]\(https?://[^\s)]+\)")


@pytest.fixture(scope="module")
def running(
    tmp_path_factory: pytest.TempPathFactory,
    discord: FakeDiscord,
    _anthropic_server: FakeAnthropic,
) -> Iterator[BotThread]:
    root = tmp_path_factory.mktemp("ask")
    estate = make_estate(root / "estate")
    make_repo(
        estate / "announcements",
        {"README.md": "# Announcements\n\n## Upgrade notice\n\n@everyone upgrade widgets now.\n"},
    )
    extra = {"discord": {"rate_limit": "3/60s", "max_concurrent_answers": 1}}
    config = bot_config(root, estate, discord, anthropic_url=_anthropic_server.url, extra=extra)
    build_index(config)
    bot = BotThread(config).start()
    yield bot
    bot.stop()


@pytest.fixture
def bot(
    running: BotThread, fake_anthropic: FakeAnthropic, discord: FakeDiscord
) -> Iterator[BotThread]:
    with watched(running, discord) as bot:
        yield bot


def last_answer_id(bot: BotThread) -> int:
    row = bot.run(bot.engine.store.fetchone("SELECT max(id) FROM answers"))
    assert row is not None
    return int(row[0])


def test_an_answer_is_edited_in_with_numbered_citations_and_feedback_buttons(
    bot, discord, fake_anthropic
):
    fake_anthropic.script(citing("Set `frobnication.depth` to seven [1].", TUNING))
    interaction = discord.command("ask", {"question": "What frobnication depth?"}, user=next(USERS))
    reply = discord.reply(interaction)

    callback = interaction.calls[0]
    assert callback.path.endswith("/callback") and callback.body["type"] == 5  # deferred first
    assert reply.how == "edit" and not reply.ephemeral
    answer, sources = reply.embeds
    assert answer["title"] == "Answer"
    assert answer["description"] == "Set `frobnication.depth` to seven [1]."
    assert sources["title"] == "Sources"
    assert "https://widgets.example/guide/#tuning-the-frobnicator" in sources["description"]
    assert CITATION_LINE.fullmatch(sources["description"])
    answer_id = last_answer_id(bot)
    assert reply.custom_ids == [f"fb:{answer_id}:y", f"fb:{answer_id}:n"]


def test_a_press_records_a_vote_and_a_second_press_changes_it(bot, discord, fake_anthropic):
    fake_anthropic.script(citing("Set `frobnication.depth` to seven.", TUNING))
    reply = ask(discord, "What frobnication depth?", next(USERS))
    answer_id = last_answer_id(bot)
    voter = next(USERS)

    thanks = discord.reply(discord.press(reply, f"fb:{answer_id}:y", user=voter))
    assert thanks.ephemeral and "helpful" in thanks.content
    discord.reply(discord.press(reply, f"fb:{answer_id}:n", user=voter))

    votes = bot.run(
        bot.engine.store.fetchall(
            "SELECT voter, helpful FROM votes WHERE answer_id = ?", (answer_id,)
        )
    )
    assert [tuple(v) for v in votes] == [(str(voter), 0)]


def test_a_press_is_acknowledged_while_the_index_is_busy_writing(bot, discord, fake_anthropic):
    fake_anthropic.script(citing("Set `frobnication.depth` to seven.", TUNING))
    reply = ask(discord, "What frobnication depth?", next(USERS))
    answer_id = last_answer_id(bot)
    refresh = HeldWrite(bot)
    try:
        press = discord.press(reply, f"fb:{answer_id}:y", user=next(USERS))
        # Discord's three seconds run out while a long refresh writes; the press must not wait.
        discord.until(lambda: press.deferred)
        deferral = press.calls[0].body
        assert deferral["type"] == 5 and deferral["data"]["flags"] == EPHEMERAL
        assert not press.replies
    finally:
        refresh.release()
    thanks = discord.reply(press)
    assert thanks.how == "edit" and thanks.ephemeral and "helpful" in thanks.content


def test_a_deferred_press_that_fails_unexpectedly_is_told_privately_with_a_reference(
    bot, discord, fake_anthropic
):
    fake_anthropic.script(citing("Set `frobnication.depth` to seven.", TUNING))
    reply = ask(discord, "What frobnication depth?", next(USERS))
    discord.fail_next["PATCH /webhooks/"] = 400  # Discord refuses the thanks, once
    press = discord.press(reply, f"fb:{last_answer_id(bot)}:y", user=next(USERS))
    told = discord.reply(press)
    assert told.how == "edit" and told.ephemeral  # in place of the deferral
    assert told.content == (
        "Something went wrong on my side while handling that. Try again in a minute; if it "
        f"keeps happening, tell a moderator and quote reference {press.id}."
    )
    problems = bot.take_problems()
    assert problems == [
        f"logged: extensions.messages: interaction {press.id}: press of "
        f"'fb:{last_answer_id(bot)}:y' failed unexpectedly"
    ]


def test_a_vote_on_an_unknown_answer_is_refused_politely(bot, discord, fake_anthropic):
    fake_anthropic.script(citing("Set `frobnication.depth` to seven.", TUNING))
    reply = ask(discord, "What frobnication depth?", next(USERS))
    refused = discord.reply(discord.press(reply, "fb:987654321:y", user=next(USERS)))
    assert refused.ephemeral
    assert "not among the answers I have recorded" in refused.content
    assert "no vote was recorded. Ask again with /ask to vote on a fresh answer" in refused.content
    assert (
        bot.run(bot.engine.store.fetchall("SELECT * FROM votes WHERE answer_id = 987654321")) == []
    )


def test_a_feedback_button_with_an_unreadable_id_says_it_is_out_of_date(
    bot, discord, fake_anthropic
):
    fake_anthropic.script(citing("Set `frobnication.depth` to seven.", TUNING))
    reply = ask(discord, "What frobnication depth?", next(USERS))
    voter = next(USERS)
    refused = discord.reply(discord.press(reply, f"fb:{last_answer_id(bot)}:maybe", user=voter))
    assert refused.how == "callback" and refused.ephemeral
    assert "out of date, so no vote was recorded" in refused.content
    assert "/ask" in refused.content
    votes = bot.run(bot.engine.store.fetchall("SELECT * FROM votes WHERE voter = ?", (str(voter),)))
    assert votes == []


def test_nothing_matched_is_declined_politely_without_asking_the_model(
    bot, discord, fake_anthropic
):
    reply = ask(discord, "zyzzyva quux", next(USERS))
    assert not reply.ephemeral and reply.custom_ids == []
    assert "couldn't find anything" in reply.content
    assert "Sources searched: announcements; widgets" in reply.content
    assert "recorded the question as a documentation gap" in reply.content
    assert fake_anthropic.received == []
    row = bot.run(bot.engine.store.fetchone("SELECT decline_kind FROM answers ORDER BY id DESC"))
    assert row[0] == "nothing_matched"


def test_a_model_decline_says_why_and_what_was_searched(bot, discord, fake_anthropic):
    fake_anthropic.script(
        tool_call("", [], declined=True, reason="The guide covers tuning, not colours.")
    )
    reply = ask(discord, "Which colours can a widget be?", next(USERS))
    assert "doesn't answer that" in reply.content
    assert "not colours" in reply.content
    assert "Closest passages searched: widgets · docs/guide.md" in reply.content
    assert "documentation gap" in reply.content and reply.custom_ids == []


def test_a_link_in_a_decline_reason_that_no_passage_gives_is_not_shown(
    bot, discord, fake_anthropic
):
    why = "Not covered. Colours are at https://evil.example/fix"
    fake_anthropic.script(tool_call("", [], declined=True, reason=why))
    reply = ask(discord, "Which colours can a widget be?", next(USERS))
    assert "Colours are at \\(a link no passage gives was removed\\)" in reply.content
    assert "evil.example" not in reply.content


def test_an_ungrounded_draft_is_declined_not_shown(bot, discord, fake_anthropic):
    fake_anthropic.script(tool_call("Set it to `eleven`.", [99]))
    reply = ask(discord, "What frobnication depth?", next(USERS))
    assert "couldn't check every part" in reply.content
    assert "eleven" not in reply.content and reply.embeds == []


def test_a_mention_in_a_passage_pings_nobody(bot, discord, fake_anthropic):
    fake_anthropic.script(citing("@everyone upgrade widgets now.", "Upgrade notice"))
    reply = ask(discord, "Is there an upgrade notice?", next(USERS))
    assert reply.allowed_mentions == {"parse": []}
    assert "@\u200beveryone upgrade widgets now." in reply.embeds[0]["description"]


def test_a_3000_character_answer_stays_within_limits_with_whole_citations(
    bot, discord, fake_anthropic
):
    long = "Widgets frobnicate, and deeper frobnication is slower. " * 55  # about 3,000
    fake_anthropic.script(lambda body: tool_call(long.strip(), [1, 2, 3]))
    reply = ask(discord, "Tell me everything about widgets and frobnication", next(USERS))
    answer, sources = reply.embeds
    assert answer["description"] == long.strip()  # it fits, so it is shown whole
    assert_within_limits(reply.content, reply.embeds)
    lines = sources["description"].splitlines()
    assert len(lines) == 3 and all(CITATION_LINE.fullmatch(line) for line in lines)


def test_an_overlong_answer_is_cut_at_a_sentence_and_keeps_whole_citations(
    bot, discord, fake_anthropic
):
    long = "Widgets frobnicate, and deeper frobnication is slower. " * 200  # about 11,000
    fake_anthropic.script(lambda body: tool_call(long.strip(), [1, 2, 3]))
    reply = ask(discord, "Tell me everything about widgets and frobnication", next(USERS))
    answer, sources = reply.embeds
    assert_within_limits(reply.content, reply.embeds)
    assert "too long to show whole" in answer["description"]
    assert answer["description"].split("\n\n")[0].endswith("slower.")
    assert all(CITATION_LINE.fullmatch(line) for line in sources["description"].splitlines())


def assert_within_limits(content: str, embeds: list[dict]) -> None:
    assert discord_len(content) <= 2000 and len(embeds) <= 10
    for e in embeds:
        assert discord_len(e.get("description", "")) <= 4096
    total = sum(
        discord_len(e.get("title", "")) + discord_len(e.get("description", ""))
        + discord_len(e.get("footer", {}).get("text", ""))
        for e in embeds
    )  # fmt: skip
    assert total <= 6000


def test_the_rate_limit_answers_with_an_ephemeral_wait(bot, discord, fake_anthropic):
    user = next(USERS)
    for _ in range(3):
        assert "couldn't find anything" in ask(discord, "zyzzyva quux", user).content
    interaction = discord.command("ask", {"question": "zyzzyva quux"}, user=user)
    refused = discord.reply(interaction)
    assert refused.how == "callback" and refused.flags & EPHEMERAL
    assert re.search(r"3 questions every 1m per person\. Try again in \d+ s\.", refused.content)
    assert [c.body["type"] for c in interaction.calls] == [4]  # no deferral, no model
    assert "couldn't find anything" in ask(discord, "zyzzyva quux", next(USERS)).content


def test_a_failing_model_is_an_ephemeral_error_logged_with_the_interaction_id(
    bot, discord, fake_anthropic, caplog
):
    fake_anthropic.script(error(400, "invalid_request_error", "bad request"))
    caplog.set_level(logging.WARNING, logger="extensions")
    interaction = discord.command("ask", {"question": "What frobnication depth?"}, user=next(USERS))
    reply = discord.reply(interaction)
    assert reply.how == "followup" and reply.ephemeral
    assert "answering model failed" in reply.content and "Try again" in reply.content
    assert f"reference {interaction.id}" in reply.content
    assert [c.method for c in interaction.calls] == ["POST", "DELETE", "POST"]
    assert any(str(interaction.id) in r.getMessage() for r in caplog.records)


def test_queued_asks_are_answered_in_order_one_model_call_at_a_time(bot, discord, fake_anthropic):
    slow = citing("Set `frobnication.depth` to seven.", TUNING)
    fake_anthropic.script(lambda body: replace(slow(body), delay=0.15))
    composer = bot.service.composer
    assert composer is not None and composer.limit == 1
    questions = [f"What frobnication depth, take {n}?" for n in range(3)]
    interactions = []
    for n, question in enumerate(questions, 1):
        interactions.append(discord.command("ask", {"question": question}, user=next(USERS)))
        # Dispatch the next only once this one is with the model or queued behind it.
        wait_for(lambda n=n: len(fake_anthropic.received) + composer.waiting == n)
    replies = [discord.reply(i) for i in interactions]
    prompts = [r.body["messages"][0]["content"] for r in fake_anthropic.received]
    assert [next(q for q in questions if q in p) for p in prompts] == questions
    assert replies[0].at < replies[1].at < replies[2].at
    assert all(r.embeds[0]["title"] == "Answer" for r in replies)
    assert composer.peak == 1 and composer.in_flight == 0


def test_a_feedback_button_works_in_a_bot_that_never_saw_the_answer(bot, discord, fake_anthropic):
    fake_anthropic.script(citing("Set `frobnication.depth` to seven.", TUNING))
    reply = ask(discord, "What frobnication depth?", next(USERS))
    answer_id = last_answer_id(bot)
    voter = next(USERS)
    # A second bot on the same index, as after a restart: it holds no state about the message.
    with FakeDiscord() as elsewhere:
        restarted = BotThread(replace(bot.config, discord_api_url=elsewhere.api_url)).start()
        try:
            thanks = elsewhere.reply(elsewhere.press(reply, f"fb:{answer_id}:n", user=voter))
        finally:
            restarted.stop()
        assert restarted.take_problems() == []
    assert thanks.ephemeral and "not helpful" in thanks.content
    votes = bot.run(
        bot.engine.store.fetchall(
            "SELECT voter, helpful FROM votes WHERE answer_id = ?", (answer_id,)
        )
    )
    assert [tuple(v) for v in votes] == [(str(voter), 0)]


def test_an_unexpected_failure_is_told_privately_with_a_reference_and_caught_by_the_fixture(
    bot, discord, fake_anthropic
):
    fake_anthropic.script(citing("Set `frobnication.depth` to seven.", TUNING))
    discord.fail_next["PATCH /webhooks/"] = 400  # Discord refuses the edited answer, once
    interaction = discord.command("ask", {"question": "What frobnication depth?"}, user=next(USERS))
    told = discord.reply(interaction)
    assert told.how == "followup" and told.ephemeral
    assert "went wrong on my side" in told.content
    assert f"reference {interaction.id}" in told.content
    problems = bot.take_problems()  # what the fixture would otherwise fail the test with
    assert any("BadRequestError" in p for p in problems), problems
    assert any(f"interaction {interaction.id}: /ask failed unexpectedly" in p for p in problems)
