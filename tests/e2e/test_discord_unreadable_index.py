"""/sources, its page buttons, /status and a feedback press on an index that can no longer be
read, end to end.

The index is damaged under the running bot, as a disk fault would damage it: every read of its
sources fails from then on, and each command says what it could not do and what to do.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from tests.discord_bot import BotThread, bot_config, build_index, watched
from tests.fakes.discord import FakeDiscord
from tests.gitrepo import make_repo
from tests.searchindex import damage

USERS = itertools.count(1500000000000000800)


@pytest.fixture
def bot(tmp_path, discord: FakeDiscord) -> Iterator[BotThread]:
    estate = tmp_path / "estate"
    for n in range(1, 13):  # two pages of sources
        make_repo(estate / f"project-{n:02d}", {"README.md": f"# Project {n}\n"})
    config = bot_config(tmp_path, estate, discord)
    build_index(config)
    running = BotThread(config).start()
    running.run(running.service.refresher.settle())  # nothing reads or writes the index now
    try:
        with watched(running, discord) as bot:
            yield bot
    finally:
        running.stop()


@pytest.mark.parametrize(
    ("command", "options", "doing"),
    [
        ("sources", None, "list the sources"),
        ("sources", {"name": "project-01"}, "explain that repository"),
        ("status", None, "show the index status"),
    ],
)
def test_a_command_on_a_damaged_index_says_what_it_could_not_do_and_what_to_do(
    bot, discord, command, options, doing
):
    damage(bot.engine.store.path, "sources")
    interaction = discord.command(command, options, user=next(USERS))
    told = discord.reply(interaction)
    assert told.ephemeral
    assert told.content == (
        f"I can't {doing} right now: the index could not be read. Try again in a minute; if it "
        f"keeps happening, tell a moderator (reference {interaction.id})."
    )


def test_a_page_press_on_a_damaged_index_is_answered_with_what_to_do_and_the_list_stays(
    bot, discord
):
    listed = discord.reply(discord.command("sources", None, user=next(USERS)))
    assert listed.custom_ids == ["src:page:0", "src:page:2"]
    damage(bot.engine.store.path, "sources")
    press = discord.press(listed, "src:page:2", user=next(USERS))
    told = discord.reply(press)
    assert told.how == "callback" and told.ephemeral
    assert press.calls[0].body["type"] == 4  # a message of its own: the list stays as it was
    assert told.content == (
        "I can't show that page of the sources right now: the index could not be read. Try "
        "again in a minute; if it keeps happening, tell a moderator "
        f"(reference {press.id})."
    )


def test_a_vote_the_damaged_index_cannot_take_says_it_was_not_saved_and_what_to_do(bot, discord):
    shown = discord.reply(discord.command("status", None, user=next(USERS)))
    damage(bot.engine.store.path, "votes")
    press = discord.press(shown, "fb:1:y", user=next(USERS))
    told = discord.reply(press)
    assert told.ephemeral
    assert told.content == (
        "Your vote could not be saved: the index could not be written. Press the button again "
        f"in a minute; if it keeps happening, tell a moderator (reference {press.id})."
    )
