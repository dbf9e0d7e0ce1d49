"""Steps for ``/status`` with an unresolved source, against the real bot and the fake Discord."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from tests.answering import make_estate
from tests.discord_bot import BotThread, bot_config, build_index
from tests.fakes.discord import FakeDiscord, Reply

scenarios("discord_status.feature")


@pytest.fixture
def replies() -> list[Reply]:
    return []


@pytest.fixture
def gone_bot(tmp_path: Path, discord: FakeDiscord) -> Iterator[list[BotThread]]:
    bots: list[BotThread] = []
    yield bots
    for bot in bots:
        problems = bot.take_problems()
        bot.stop()
        assert not problems, problems


@given(
    parsers.parse(
        'the bot serves "{name}", listed on its own, and the repository has since been deleted'
    )
)
def serves_a_deleted_source(
    tmp_path: Path, discord: FakeDiscord, gone_bot: list[BotThread], name: str
) -> None:
    discord.reset()
    estate = make_estate(tmp_path / "estate")
    extra = {"sources": {"local": [str(estate), str(estate / name)]}}
    config = bot_config(tmp_path, estate, discord, extra=extra)
    build_index(config)
    shutil.rmtree(estate / name)
    bot = BotThread(config).start()
    gone_bot.append(bot)
    bot.run(bot.service.refresher.settle())  # the start-up refresh finds it gone


@when("someone runs /status")
def someone_asks_status(discord: FakeDiscord, replies: list[Reply]) -> None:
    replies.append(discord.reply(discord.command("status", None, user=1500000000000000900)))


@then(parsers.parse('the reply says "{text}"'))
def reply_says(replies: list[Reply], text: str) -> None:
    [embed] = replies[-1].embeds
    assert text in embed["description"], embed["description"]
