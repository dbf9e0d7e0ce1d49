"""With no guilds configured, the commands are synced globally and answered from anywhere."""

from __future__ import annotations

from tests.answering import make_estate
from tests.discord_bot import BotThread, bot_config, build_index
from tests.fakes.discord import FakeDiscord


def test_commands_are_synced_globally_and_work_in_a_direct_message(tmp_path):
    with FakeDiscord() as discord:
        config = bot_config(
            tmp_path, make_estate(tmp_path / "estate"), discord, extra={"discord": {"guilds": []}}
        )
        build_index(config)
        bot = BotThread(config).start()
        try:
            assert {c["name"] for c in discord.commands[None]} == {"ask", "sources", "status"}
            assert not [guild for guild in discord.commands if guild is not None]
            reply = discord.reply(discord.command("status", guild=None))  # a direct message
        finally:
            bot.stop()
        assert bot.take_problems() == []
    assert "**Answers:** none" in reply.embeds[0]["description"]
