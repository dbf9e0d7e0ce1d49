"""``serve`` warns once, after its first refresh, of a refresh interval that names no source."""

from __future__ import annotations

import logging

import pytest

from tests.answering import make_estate
from tests.discord_bot import BotThread, bot_config, build_index
from tests.fakes.discord import FakeDiscord


def test_an_interval_naming_no_source_is_logged_once_after_the_first_refresh(
    tmp_path, discord: FakeDiscord, caplog: pytest.LogCaptureFixture
):
    estate = make_estate(tmp_path / "estate")
    extra = {"sources": {"refresh_intervals": {"widgetz": "1h"}}}
    config = bot_config(tmp_path, estate, discord, extra=extra)
    build_index(config)
    caplog.set_level(logging.INFO, logger="bot")
    bot = BotThread(config).start()
    try:
        bot.run(bot.service.refresher.settle())  # the start-up refresh
        bot.run(bot.service.refresher.run(why="test"))  # and one more: no second warning
    finally:
        bot.stop()
    warned = [
        r
        for r in caplog.records
        if r.levelno == logging.WARNING and "sources.refresh_intervals" in r.getMessage()
    ]
    assert [r.getMessage() for r in warned] == [
        "sources.refresh_intervals names 'widgetz', but no source is called that (did you mean "
        "'widgets'?), so its interval applies to nothing. Correct the name or remove it."
    ]
    assert bot.take_problems() == []
