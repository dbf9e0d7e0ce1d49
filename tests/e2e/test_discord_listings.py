"""/sources, /status and passage-only answers end to end, with no model configured."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

import pytest

from tests.discord_bot import BotThread, ask, bot_config, build_index, watched
from tests.fakes.discord import FakeDiscord
from tests.gitrepo import make_repo

USERS = itertools.count(1500000000000000500)
PROJECTS = [f"project-{n:02d}" for n in range(1, 13)]


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory, discord: FakeDiscord) -> Iterator[BotThread]:
    root = tmp_path_factory.mktemp("listings")
    estate = root / "estate"
    for name in PROJECTS:
        make_repo(estate / name, {"README.md": f"# {name}\n\n## Purpose\n\n{name} does things.\n"})
    make_repo(
        estate / "announcements",
        {
            "README.md": "# Announcements\n\n## Upgrade notice\n\n"
            "@everyone and <@123456789012345678>: upgrade the widgets now.\n"
        },
    )
    make_repo(estate / "secret-plans", {"README.md": "# Secret\n"})
    extra = {
        "sources": {
            "local": [str(estate), str(root / "gone")],
            "exclude": ["secret-plans"],
            "refresh_intervals": {"project-01": "1s"},
        }
    }
    config = bot_config(root, estate, discord, extra=extra)
    build_index(config)
    bot = BotThread(config).start()
    yield bot
    bot.stop()


@pytest.fixture
def bot(running: BotThread, discord: FakeDiscord) -> Iterator[BotThread]:
    with watched(running, discord) as bot:
        yield bot


def command(discord: FakeDiscord, command_name: str, **options: str):
    return discord.reply(discord.command(command_name, options or None, user=next(USERS)))


def test_sources_lists_every_verdict_with_its_clause_a_page_at_a_time(bot, discord):
    first = command(discord, "sources")
    assert "15 sources: 13 indexed, 1 rejected, 1 unresolved." in first.content
    [embed] = first.embeds
    assert embed["title"] == "Sources — page 1 of 2"
    lines = embed["description"].splitlines()
    assert len(lines) == 10
    assert lines[0].startswith("**announcements** — admitted by ")
    assert any(
        line.startswith("**gone \\(missing at ") and "\\)** — unresolved by missing: " in line
        for line in lines
    )
    assert first.custom_ids == ["src:page:0", "src:page:2"]
    previous, following = first.components[0]["components"]
    assert previous["disabled"] is True and following.get("disabled") is not True

    second = discord.reply(discord.press(first, "src:page:2", user=next(USERS)))
    assert second.how == "callback"
    assert discord.interactions()[-1].calls[0].body["type"] == 7  # the message is updated in place
    [embed] = second.embeds
    assert embed["title"] == "Sources — page 2 of 2"
    assert any(
        line.startswith("**secret\\-plans** — rejected by excluded")
        for line in embed["description"].splitlines()
    )


@pytest.mark.parametrize("custom_id", ["src:page:-1", "src:page:two", "src:page:1234567"])
def test_a_page_button_with_an_unreadable_id_says_it_is_out_of_date(bot, discord, custom_id):
    listed = command(discord, "sources")
    press = discord.press(listed, custom_id, user=next(USERS))
    told = discord.reply(press)
    assert told.how == "callback" and told.ephemeral
    assert press.calls[0].body["type"] == 4  # a message of its own: the list stays as it was
    assert "This button is out of date" in told.content
    assert "Run /sources again" in told.content


def test_sources_with_a_name_explains_why_it_is_not_indexed(bot, discord):
    reply = command(discord, "sources", name="secret-plans")
    [embed] = reply.embeds
    assert embed["title"] == "secret-plans"
    assert "**Not indexed**: the excluded rule rejected it" in embed["description"]


def test_sources_with_an_unknown_name_suggests_close_ones_and_says_how_sources_are_found(
    bot, discord
):
    reply = command(discord, "sources", name="projcet-07")
    assert "No source called **projcet\\-07** is known" in reply.content
    assert "Did you mean **project\\-07**," in reply.content
    assert "sources.local" in reply.content and "index build" in reply.content


def test_sources_with_the_name_of_an_indexed_source_shows_what_it_holds(bot, discord):
    [embed] = command(discord, "sources", name="project-02").embeds
    assert "**Indexed**: answers may cite it" in embed["description"]
    assert "**Holds:** 1 documents, 1 passages" in embed["description"]


def test_status_shows_freshness_errors_totals_and_the_provider(bot, discord):
    bot.run(bot.service.refresher.settle())  # the start-up refresh has written its times
    [embed] = command(discord, "status").embeds
    text = embed["description"]
    assert embed["title"] == "Index status"
    assert "**Answers:** none" in text
    assert re.search(
        r"\*\*Totals:\*\* 14 sources, 13 documents, \d+ passages; \d+ stale, 0 failing, "
        r"1 unresolved",  # the path listed but never there: nothing is answered from it
        text,
    )
    assert re.search(r"\*\*Last refresh:\*\* \d+s ago", text)
    assert re.search(r"✓ \*\*project\\-02\*\*: refreshed \d+s ago, every 6h", text)


def test_without_a_model_the_passages_are_shown_with_links_and_mentions_defused(bot, discord):
    reply = ask(discord, "Is there an upgrade notice?", next(USERS))
    assert reply.content.startswith(
        "No answering model is configured, so these are the passages an answer would be drawn "
        "from, in the order the model would read them"
    )
    first = reply.embeds[0]
    assert first["title"].startswith("[1] announcements · README.md — Upgrade notice")
    assert "url" not in first  # a local repository has no web address to link to
    assert "@\u200beveryone" in first["description"]
    assert "<@\u200b123456789012345678>" in first["description"]
    assert reply.allowed_mentions == {"parse": []}
    assert reply.custom_ids == []


def test_a_page_press_that_fails_unexpectedly_is_told_privately_with_a_reference(bot, discord):
    listed = command(discord, "sources")
    discord.fail_next["POST /interactions/"] = 400  # Discord refuses the page, once
    press = discord.press(listed, "src:page:2", user=next(USERS))
    told = discord.reply(press)
    assert told.how == "callback" and told.ephemeral
    assert press.calls[-1].body["type"] == 4  # a message of its own: the list stays as it was
    assert told.content == (
        "Something went wrong on my side while handling that. Try again in a minute; if it "
        f"keeps happening, tell a moderator and quote reference {press.id}."
    )
    problems = bot.take_problems()  # what the fixture would otherwise fail the test with
    assert problems == [
        f"logged: extensions.messages: interaction {press.id}: press of 'src:page:2' failed "
        "unexpectedly"
    ]
