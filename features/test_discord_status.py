"""Steps for ``/status`` beyond freshness, against the real bot and the fake Discord.

A source gone since it was indexed, and passages hybrid retrieval has no vector for.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from bot.index.embedder import MODEL_PACKAGE
from tests.answering import make_estate
from tests.discord_bot import BotThread, bot_config, build_index
from tests.fakes.discord import FakeDiscord, Reply
from tests.fakes.embedding import modules_that_fail_to_load

scenarios("discord_status.feature")


@pytest.fixture
def replies() -> list[Reply]:
    return []


@pytest.fixture
def served(tmp_path: Path, discord: FakeDiscord) -> Iterator[list[BotThread]]:
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
    tmp_path: Path, discord: FakeDiscord, served: list[BotThread], name: str
) -> None:
    discord.reset()
    estate = make_estate(tmp_path / "estate")
    extra = {"sources": {"local": [str(estate), str(estate / name)]}}
    config = bot_config(tmp_path, estate, discord, extra=extra)
    build_index(config)
    shutil.rmtree(estate / name)
    bot = BotThread(config).start()
    served.append(bot)
    bot.run(bot.service.refresher.settle())  # the start-up refresh finds it gone


@given("the bot serves the widgets documentation in hybrid mode, and its embedding model fails")
def serves_hybrid_without_vectors(
    tmp_path: Path,
    discord: FakeDiscord,
    served: list[BotThread],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    discord.reset()
    estate = make_estate(tmp_path / "estate")
    build_index(bot_config(tmp_path, estate, discord))  # in bm25 mode: no passage has a vector
    monkeypatch.syspath_prepend(str(modules_that_fail_to_load(tmp_path / "model")))
    for module in (MODEL_PACKAGE, "sentence_transformers"):  # where the real model is installed,
        monkeypatch.delitem(sys.modules, module, raising=False)  # it is back for the next test
    config = bot_config(tmp_path, estate, discord, extra={"retrieval": {"mode": "hybrid"}})
    bot = BotThread(config).start()
    served.append(bot)
    bot.run(bot.service.refresher.settle())  # the start-up refresh fails to embed them


@when("someone runs /status")
def someone_asks_status(discord: FakeDiscord, replies: list[Reply]) -> None:
    replies.append(discord.reply(discord.command("status", None, user=1500000000000000900)))


@then(parsers.parse('the reply says "{text}"'))
def reply_says(replies: list[Reply], text: str) -> None:
    [embed] = replies[-1].embeds
    assert text in embed["description"], embed["description"]
