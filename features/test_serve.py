import asyncio
import logging
import os
import signal
import socket
from collections.abc import Iterator

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from bot import config as config_module
from bot.app import Service
from bot.event_loop import fast_loop_factory
from features.conftest import World, cli_arguments
from tests.discord_bot import connected
from tests.fakes.discord import APP_ID, GUILD_ID, TOKEN, FakeDiscord
from tests.pipes import exited, start_cli

scenarios("serve.feature")


@pytest.fixture
def fake_discord() -> Iterator[FakeDiscord]:
    with FakeDiscord() as fake:
        yield fake


@given(parsers.parse('the configuration listens for the push webhook on "{listen}"'))
def webhook_listens(world: World, listen: str) -> None:
    path = world.root / "phpbotscout.toml"
    path.write_text(path.read_text() + f'\n[webhook]\nlisten = "{listen}"\n')


@pytest.fixture
def held_port() -> Iterator[int]:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]


@given("the configuration listens for the push webhook on a port another program holds")
def webhook_port_held(world: World, held_port: int) -> None:
    webhook_listens(world, f"127.0.0.1:{held_port}")


@given("the webhook secret is set")
def webhook_secret_set(monkeypatch) -> None:
    monkeypatch.setenv("PHPBOTSCOUT_WEBHOOK_SECRET", "s3cret-push-token")


@given(parsers.parse('the configuration\'s Discord address is "{url}"'))
def discord_address(world: World, url: str) -> None:
    path = world.root / "phpbotscout.toml"
    path.write_text(path.read_text() + f'\n[discord]\napi_url = "{url}"\n')


@given("a Discord bot token is set")
def token_set(monkeypatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)


@given("the webhook secret holds a byte that is not UTF-8")
def webhook_secret_not_utf8(monkeypatch) -> None:
    # The byte 0xff reaches Python's environment as the lone surrogate \udcff.
    monkeypatch.setenv("PHPBOTSCOUT_WEBHOOK_SECRET", os.fsdecode(b"s3cr\xffet"))


@given("Discord answers at a fake address")
def discord_answers(world: World, fake_discord: FakeDiscord) -> None:
    path = world.root / "phpbotscout.toml"
    path.write_text(
        path.read_text() + f'\n[discord]\napi_url = "{fake_discord.api_url}"\n'
        f"guilds = [{GUILD_ID}]\n"
        '\n[answer]\nprovider = "none"\n'
    )


@when(parsers.parse("{command} runs until Discord ends its session with close code {code:d}"))
def serve_until_dropped(world: World, fake_discord: FakeDiscord, command: str, code: int) -> None:
    process = start_cli(cli_arguments(command), cwd=world.root)
    try:
        fake_discord.until(lambda: connected(fake_discord), timeout=60)
        fake_discord.close_session(code)
    finally:
        world.code, world.stderr = exited(process, "exit after Discord ended its session")


@when(parsers.parse("{command} runs and Discord refuses its session with close code {code:d}"))
def serve_refused(world: World, fake_discord: FakeDiscord, command: str, code: int) -> None:
    fake_discord.refuse_identify = code
    process = start_cli(cli_arguments(command), cwd=world.root)
    world.code, world.stderr = exited(process, "exit after Discord refused its session", 60)


@when(parsers.parse("{command} runs when Discord allows no more session starts"))
def serve_without_sessions(world: World, fake_discord: FakeDiscord, command: str) -> None:
    fake_discord.sessions_remaining = 0
    process = start_cli(cli_arguments(command), cwd=world.root)
    world.code, world.stderr = exited(process, "exit when no session starts were left", 60)


@given("Discord refuses the slash commands for the configured guild")
def commands_refused(fake_discord: FakeDiscord) -> None:
    fake_discord.fail_next[f"PUT /applications/{APP_ID}/guilds/{GUILD_ID}/commands"] = 403


@given("Discord's gateway cannot be reached")
def gateway_unreachable(fake_discord: FakeDiscord) -> None:
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        fake_discord.gateway_url = f"ws://127.0.0.1:{closed.getsockname()[1]}/gateway"


@when(parsers.parse("{command} is sent SIGTERM while it tries to reach the gateway"))
def serve_terminated_starting(world: World, fake_discord: FakeDiscord, command: str) -> None:
    process = start_cli(cli_arguments(command), cwd=world.root)
    try:
        fake_discord.until(
            lambda: any(c.path == "/gateway/bot" for c in fake_discord.calls), timeout=60
        )
    finally:
        process.send_signal(signal.SIGTERM)
        world.code, world.stderr = exited(process, "stop on SIGTERM")


@when("serve is stopped just as its first scheduled refresh falls due")
def serve_stopped_as_a_tick_falls_due(world: World, caplog: pytest.LogCaptureFixture) -> None:
    config = config_module.load(None, config_module.environment(os.environ, world.root), world.root)

    async def start_and_stop() -> None:
        service = await Service.start(config)
        # The first tick is due at start-up and APScheduler's wakeup for it is already queued
        # on the loop: stopping before the loop turns again lands just as that tick fires.
        await service.stop(grace=0)

    with caplog.at_level(logging.INFO), asyncio.Runner(loop_factory=fast_loop_factory()) as loop:
        loop.run(start_and_stop())  # on the loop serve itself runs on


@then("nothing is logged as an error")
def nothing_logged_as_error(caplog: pytest.LogCaptureFixture) -> None:
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


@then("the error holds no traceback")
def no_traceback(world: World) -> None:
    assert "Traceback (most recent call last)" not in world.stderr, world.stderr


@then("Discord was never contacted")
def discord_not_contacted(fake_discord: FakeDiscord) -> None:
    assert fake_discord.calls == []
