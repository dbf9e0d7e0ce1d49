"""Steps for the index file under a running bot, against the real bot and the fake Discord."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from tests.answering import make_estate
from tests.discord_bot import BotThread, bot_config, build_index
from tests.fakes.discord import EPHEMERAL, FakeDiscord, Reply
from tests.gitrepo import make_repo
from tests.searchindex import damage

scenarios("index_file.feature")

ASKER = 1500000000000000901


@pytest.fixture
def estate(tmp_path: Path) -> Path:
    return make_estate(tmp_path / "estate")


@pytest.fixture
def bot(tmp_path: Path, estate: Path, discord: FakeDiscord) -> Iterator[BotThread]:
    config = bot_config(tmp_path, estate, discord)
    build_index(config)
    running = BotThread(config).start()
    running.run(running.service.refresher.settle())
    yield running
    running.stop()


@pytest.fixture
def replies() -> list[Reply]:
    return []


@given(parsers.parse("{count:d} repositories, each with a README"), target_fixture="estate")
def many_repositories(tmp_path: Path, count: int) -> Path:
    for n in range(1, count + 1):
        make_repo(tmp_path / "estate" / f"project-{n:02d}", {"README.md": f"# Project {n}\n"})
    return tmp_path / "estate"


@given("the bot is running with the widgets documentation indexed")
@given("the bot is running with them indexed")
def running(bot: BotThread) -> None:
    assert bot.engine.store.path.is_file()


@when("the index file is deleted")
def delete_index(bot: BotThread) -> None:
    path = bot.engine.store.path
    for leftover in path.parent.glob(path.name + "*"):  # with its -wal and -shm files
        leftover.unlink()


@when("the index file is damaged")
def damage_index(bot: BotThread) -> None:
    damage(bot.engine.store.path, "sources")


@when("the index file is damaged where votes are kept")
def damage_votes(bot: BotThread) -> None:
    damage(bot.engine.store.path, "votes")


@when(parsers.re(r"someone runs /(?P<command>sources|status)"))
def run_command(discord: FakeDiscord, replies: list[Reply], command: str) -> None:
    replies.append(discord.reply(discord.command(command, None, user=ASKER)))


@when(parsers.parse('someone presses "{label}" under the list'))
def press(discord: FakeDiscord, replies: list[Reply], label: str) -> None:
    listed = replies[0]
    [button] = [b for b in listed.components[0]["components"] if b["label"] == label]
    replies.append(discord.reply(discord.press(listed, button["custom_id"], user=ASKER)))


@when(parsers.parse('someone presses "{label}" for an answer'))
def press_feedback(discord: FakeDiscord, replies: list[Reply], label: str) -> None:
    # The bot reads everything a feedback press needs from the button's id, not the message.
    custom_id = {"Helpful": "fb:1:y", "Not helpful": "fb:1:n"}[label]
    replies.append(discord.reply(discord.press(replies[0], custom_id, user=ASKER)))


@when(parsers.parse('someone runs /ask "{question}"'))
def ask(discord: FakeDiscord, replies: list[Reply], question: str) -> None:
    replies.append(discord.reply(discord.command("ask", {"question": question}, user=ASKER)))


@then("the list is left as it was")
def list_kept(discord: FakeDiscord) -> None:
    pressed = discord.interactions()[-1]
    assert [c.body["type"] for c in pressed.calls] == [4]  # a message of its own, no update (7)


@then(parsers.parse('the reply, for everyone, says "{text}"'))
def public_reply(replies: list[Reply], text: str) -> None:
    assert text in replies[-1].content
    assert not replies[-1].flags & EPHEMERAL


@then(parsers.parse('only they see "{text}"'))
def private_reply(replies: list[Reply], text: str) -> None:
    assert text in replies[-1].content
    assert replies[-1].flags & EPHEMERAL
