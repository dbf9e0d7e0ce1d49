"""``python -m bot.cli serve`` as a process: it connects, answers, and stops cleanly on a signal."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import replace
from importlib.util import find_spec
from pathlib import Path

import pytest

from bot import config as config_module
from bot.index.embedder import MODEL_PACKAGE
from tests.answering import make_estate
from tests.discord_bot import build_index, connected, wait_for
from tests.fakes.anthropic_server import KEY, FakeAnthropic, citing
from tests.fakes.discord import APP_ID, GUILD_ID, TOKEN, FakeDiscord
from tests.pipes import exited, start_cli
from tests.webhooking import free_port


@pytest.fixture
def discord() -> Iterator[FakeDiscord]:
    with FakeDiscord() as fake:
        yield fake


def write_config(root: Path, discord: FakeDiscord, anthropic: FakeAnthropic) -> Path:
    estate = make_estate(root / "estate")
    path = root / "phpbotscout.toml"
    path.write_text(
        f'[sources]\nlocal = ["{estate}"]\n[index]\npath = "index.sqlite"\n'
        f'[answer]\nprovider = "anthropic"\ntimeout = "10s"\n'
        f'[discord]\napi_url = "{discord.api_url}"\nguilds = [{GUILD_ID}]\n'
    )
    env = {"HOME": str(root), "ANTHROPIC_API_KEY": KEY}
    build_index(config_module.load(str(path), env, root))
    return path


def start_serve(config: Path, anthropic: FakeAnthropic, **env: str) -> subprocess.Popen[str]:
    extra = {"DISCORD_TOKEN": TOKEN, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": anthropic.url}
    return start_cli(["--config", str(config), "serve"], env=extra | env)


def stop(process: subprocess.Popen[str], sig: int = signal.SIGTERM) -> tuple[int, str]:
    process.send_signal(sig)
    return exited(process, "stop")


def test_serve_answers_and_sigterm_stops_it_cleanly(tmp_path, home, discord, fake_anthropic):
    config = write_config(tmp_path, discord, fake_anthropic)
    process = start_serve(config, fake_anthropic)
    try:
        discord.until(lambda: connected(discord), timeout=60)
        status = discord.reply(discord.command("status"), timeout=10)
        assert "**Answers:** anthropic (`claude-haiku-4-5`)" in status.embeds[0]["description"]
    finally:
        code, err = stop(process, signal.SIGTERM)
    assert code == 0, err
    assert "stopped cleanly" in err
    assert "event loop: uvloop" in err  # the service runs on uvloop where it is installed
    assert TOKEN not in err and KEY not in err
    # Every request went to the configured Discord address; none carried the token elsewhere.
    assert all(c.headers.get("Host", "").startswith("127.0.0.1") for c in discord.calls)


def test_an_answer_in_flight_is_finished_before_serve_exits(
    tmp_path, home, discord, fake_anthropic
):
    config = write_config(tmp_path, discord, fake_anthropic)
    slow = citing("Set `frobnication.depth` to seven.", "Tuning the frobnicator")
    fake_anthropic.script(lambda body: replace(slow(body), delay=1.0))
    process = start_serve(config, fake_anthropic)
    try:
        discord.until(lambda: connected(discord), timeout=60)
        interaction = discord.command("ask", {"question": "What frobnication depth?"})
        discord.until(lambda: len(fake_anthropic.received) == 1, timeout=10)
    finally:
        code, err = stop(process, signal.SIGINT)
    assert code == 0, err
    assert "stopped cleanly" in err
    reply = discord.reply(interaction, timeout=1)  # already there: serve waited for it
    assert reply.embeds[0]["description"] == "Set `frobnication.depth` to seven."


def test_a_second_signal_tells_the_askers_at_once_instead_of_waiting(
    tmp_path, home, discord, fake_anthropic
):
    config = write_config(tmp_path, discord, fake_anthropic)
    fake_anthropic.script(citing("Set `frobnication.depth` to seven.", "Tuning the frobnicator"))
    fake_anthropic.hold()  # the answer stays in flight until the end of the test
    process = start_serve(config, fake_anthropic)
    said: list[str] = []
    draining = threading.Event()

    def read_log() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            said.append(line)
            if "waiting up to" in line:
                draining.set()

    reader = threading.Thread(target=read_log, daemon=True)
    reader.start()
    try:
        discord.until(lambda: connected(discord), timeout=60)
        interaction = discord.command("ask", {"question": "What frobnication depth?"})
        wait_for(lambda: len(fake_anthropic.received) == 1, timeout=10)
        process.send_signal(signal.SIGTERM)
        assert draining.wait(10), "".join(said)
        process.send_signal(signal.SIGTERM)  # well inside the 20 s the first one gives
        reply = discord.reply(interaction, timeout=5)
    finally:
        fake_anthropic.release()
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        code = process.wait(30)
        reader.join(5)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
    log = "".join(said)
    assert code == 0, log
    assert "restarting" in reply.text and "second signal" in log, log


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_discord_cannot_be_reached_at_start_stops_serve_cleanly(
    tmp_path, home, discord, fake_anthropic, sig
):
    config = write_config(tmp_path, discord, fake_anthropic)
    with socket.socket() as closed:  # a port nothing listens on: the gateway is unreachable
        closed.bind(("127.0.0.1", 0))
        discord.gateway_url = f"ws://127.0.0.1:{closed.getsockname()[1]}/gateway"
    process = start_serve(config, fake_anthropic)
    try:
        # serve keeps trying the gateway for as long as it is down, so it is starting now.
        discord.until(lambda: any(c.path == "/gateway/bot" for c in discord.calls), timeout=60)
    finally:
        code, err = stop(process, sig)
    assert code == 0, err
    assert "Traceback (most recent call last)" not in err, err
    assert err.splitlines()[-1].endswith("signal received while starting; stopped cleanly"), err
    assert "interrupted" not in err


def test_serve_without_a_token_is_a_configuration_error(tmp_path, home, discord, fake_anthropic):
    config = write_config(tmp_path, discord, fake_anthropic)
    process = start_serve(config, fake_anthropic, DISCORD_TOKEN="")
    code, err = exited(process, "exit after its configuration error", timeout=60)
    assert code == 2
    assert "DISCORD_TOKEN" in err and "developer portal" in err
    assert discord.calls == []


@pytest.mark.skipif(
    all(find_spec(name) is not None for name in (MODEL_PACKAGE, "sentence_transformers")),
    reason="the embed extra is installed here, so hybrid retrieval has its model",
)
def test_serve_in_hybrid_mode_without_a_model_exits_with_the_reason(
    tmp_path, home, discord, fake_anthropic
):
    config = write_config(tmp_path, discord, fake_anthropic)
    config.write_text(config.read_text() + '[retrieval]\nmode = "hybrid"\n')
    process = start_serve(config, fake_anthropic)
    code, err = exited(process, "exit after its configuration error", timeout=60)
    assert code == 2, err
    assert "retrieval.mode" in err and ".venv/bin/pip install -e '.[embed]'" in err
    assert discord.calls == []


def test_a_webhook_secret_that_is_not_utf8_stops_serve_before_it_connects(
    tmp_path, home, discord, fake_anthropic
):
    config = write_config(tmp_path, discord, fake_anthropic)
    config.write_text(config.read_text() + f'[webhook]\nlisten = "127.0.0.1:{free_port()}"\n')
    # A str with a lone surrogate is passed to the process as the byte 0xff.
    secret = os.fsdecode(b"s3cr\xffet")
    process = start_serve(config, fake_anthropic, PHPBOTSCOUT_WEBHOOK_SECRET=secret)
    code, err = exited(process, "exit after its configuration error", timeout=60)
    assert code == 2, err
    assert "PHPBOTSCOUT_WEBHOOK_SECRET" in err and "UTF-8 text" in err
    assert "Traceback" not in err and "s3cr" not in err
    assert discord.calls == []


def test_a_webhook_address_already_taken_stops_serve_in_one_line_before_it_connects(
    tmp_path, home, discord, fake_anthropic
):
    config = write_config(tmp_path, discord, fake_anthropic)
    with socket.socket() as taken:  # another program listening where the webhook would
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config.write_text(config.read_text() + f'[webhook]\nlisten = "127.0.0.1:{port}"\n')
        process = start_serve(config, fake_anthropic, PHPBOTSCOUT_WEBHOOK_SECRET="s3cret-push")
        code, err = exited(process, "exit after its configuration error", timeout=60)
    assert code == 2, err
    assert "Traceback (most recent call last)" not in err, err
    last = err.splitlines()[-1]
    said = f"error: configuration key 'webhook.listen' has value '127.0.0.1:{port}'"
    assert last.startswith(said), err
    assert "address already in use" in last and "choose another" in last, err
    assert discord.calls == []  # no session start spent on a run that cannot serve


@pytest.mark.parametrize(
    ("close_code", "begins", "says"),
    [
        # The token was reset or revoked while serve ran: only a new one helps.
        (
            4004,
            "Discord ended the connection because it no longer accepts the bot's token (4004)",
            "put the new one in DISCORD_TOKEN",
        ),
        # Intents Discord will not grant: it refuses them again on every try, so the message
        # points at the application rather than at starting serve again.
        (
            4014,
            "Discord ended the bot's gateway session for good with close code 4014 "
            "(disallowed intents)",
            "the cause is in the application's settings",
        ),
    ],
)
def test_discord_ending_the_session_for_good_is_one_line_saying_what_to_do_not_a_traceback(
    tmp_path, home, discord, fake_anthropic, close_code, begins, says
):
    config = write_config(tmp_path, discord, fake_anthropic)
    process = start_serve(config, fake_anthropic)
    try:
        discord.until(lambda: connected(discord), timeout=60)
        discord.close_session(close_code)
    finally:
        code, err = exited(process, "exit after Discord ended its session")
    assert code == 1, err
    assert "Traceback (most recent call last)" not in err, err
    last = err.splitlines()[-1]
    assert last.startswith(f"error: {begins}") and says in last, err
    assert "stopped cleanly" not in err
    assert discord.identified == 1  # a session Discord ended for good is not tried again


@pytest.mark.parametrize(
    ("close_code", "begins", "says"),
    [
        # A token Discord does not accept at IDENTIFY: only a valid one helps.
        (4004, "Discord refused the bot's token (4004)", "put the new one in DISCORD_TOKEN"),
        # Intents: serve asks for none, and Discord refuses them again on every try.
        (
            4013,
            "Discord refused the bot's gateway session with close code 4013 (invalid intents)",
            "without that change is refused the same way",
        ),
        (
            4014,
            "Discord refused the bot's gateway session with close code 4014 (disallowed intents)",
            "the cause is in the application's settings",
        ),
    ],
)
def test_discord_refusing_the_session_at_start_up_says_what_it_refused_not_to_check_the_network(
    tmp_path, home, discord, fake_anthropic, close_code, begins, says
):
    config = write_config(tmp_path, discord, fake_anthropic)
    discord.refuse_identify = close_code
    process = start_serve(config, fake_anthropic)
    code, err = exited(process, "exit after Discord refused its session", timeout=60)
    assert code == 1, err
    assert "Traceback (most recent call last)" not in err, err
    last = err.splitlines()[-1]
    assert last.startswith(f"error: {begins}") and says in last, err
    assert "Check the network" not in err, err
    identifies = [f for f in discord.gateway_frames if f["op"] == 2]
    assert len(identifies) == 1 and discord.identified == 0  # refused once, not tried again


def test_no_session_starts_left_says_to_wait_for_discords_window_not_a_traceback(
    tmp_path, home, discord, fake_anthropic
):
    config = write_config(tmp_path, discord, fake_anthropic)
    discord.sessions_remaining = 0
    process = start_serve(config, fake_anthropic)
    code, err = exited(process, "exit when Discord allows no more sessions", timeout=60)
    assert code == 1, err
    assert "Traceback (most recent call last)" not in err, err
    last = err.splitlines()[-1]
    assert last.startswith("error: Discord allows this bot no more gateway sessions"), err
    assert "Wait until the window resets" in last, err
    assert not [f for f in discord.gateway_frames if f["op"] == 2]  # never tried to identify


def test_a_guild_refusing_the_slash_commands_stops_serve_saying_how_to_add_the_bot(
    tmp_path, home, discord, fake_anthropic
):
    config = write_config(tmp_path, discord, fake_anthropic)
    # Discord's "Missing Access": the bot is not in the guild, or lacks applications.commands.
    discord.fail_next[f"PUT /applications/{APP_ID}/guilds/{GUILD_ID}/commands"] = 403
    process = start_serve(config, fake_anthropic)
    code, err = exited(process, "exit when Discord refused its commands", timeout=60)
    assert code == 1, err
    assert "Traceback (most recent call last)" not in err, err
    last = err.splitlines()[-1]
    assert last.startswith(
        f"error: Discord refused the slash commands for guild {GUILD_ID} (403"
    ), err
    assert "applications.commands" in last and "discord.guilds" in last, err
    assert "synced to" not in err and "stopped cleanly" not in err
