"""What serve needs before it connects, the answer bound, the per-user rate limit, and its end."""

import pytest

from bot import config
from bot.answer.bounded import queue_wait
from bot.config import RateLimit
from bot.errors import ConfigError
from bot.gateway_close import commands_refused, dropped_message, refused_message, token_refused
from bot.ratelimit import RateLimiter, whole_seconds
from tests.fakes.discord import TOKEN


def load(tmp_path, text: str = "", **env: str) -> config.Config:
    path = tmp_path / "phpbotscout.toml"
    path.write_text('[sources]\nlocal = ["."]\n' + text)
    return config.load(str(path), {"HOME": str(tmp_path), **env}, tmp_path)


def test_serve_without_a_token_is_refused_naming_the_variable(tmp_path):
    with pytest.raises(ConfigError) as caught:
        config.check_serve(load(tmp_path))
    assert str(caught.value).startswith("environment variable 'DISCORD_TOKEN' is not set: ")
    assert "developer portal" in str(caught.value)
    assert caught.value.exit_code == 2


@pytest.mark.parametrize("token", ["not-a-token", "a.b", "bm90ZGlnaXRz.x.y", "MTIz..z", "!!!.x.y"])
def test_a_token_that_cannot_be_a_bot_token_is_refused_without_showing_it(tmp_path, token):
    with pytest.raises(ConfigError) as caught:
        config.check_serve(load(tmp_path, DISCORD_TOKEN=token))
    assert "DISCORD_TOKEN" in str(caught.value) and token not in str(caught.value)


def test_a_real_shaped_token_passes(tmp_path):
    config.check_serve(load(tmp_path, DISCORD_TOKEN=TOKEN))


def test_the_webhook_needs_its_secret(tmp_path):
    listening = load(tmp_path, '[webhook]\nlisten = "127.0.0.1:8088"\n', DISCORD_TOKEN=TOKEN)
    with pytest.raises(ConfigError, match="PHPBOTSCOUT_WEBHOOK_SECRET"):
        config.check_serve(listening)
    config.check_serve(
        load(
            tmp_path,
            '[webhook]\nlisten = "127.0.0.1:8088"\n',
            DISCORD_TOKEN=TOKEN,
            PHPBOTSCOUT_WEBHOOK_SECRET="s3cret",
        )
    )


@pytest.mark.parametrize(
    ("timeout", "wait"), [(1, 1), (60, 60), (420, 420), (421, 419), (600, 240)]
)
def test_a_question_waits_in_line_one_answer_timeout_and_never_past_discords_15_minutes(
    timeout, wait
):
    assert queue_wait(timeout) == wait
    assert queue_wait(timeout) + timeout <= 14 * 60  # a minute left to retrieve and reply


def test_the_answer_bound_defaults_to_four_and_is_checked(tmp_path):
    assert load(tmp_path).discord_max_concurrent_answers == 4
    assert (
        load(tmp_path, "[discord]\nmax_concurrent_answers = 1\n").discord_max_concurrent_answers
        == 1
    )
    for bad in ("0", "65", '"4"', "true", "2.5"):
        with pytest.raises(ConfigError, match=r"discord\.max_concurrent_answers.*1 to 64"):
            load(tmp_path, f"[discord]\nmax_concurrent_answers = {bad}\n")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_each_user_gets_count_asks_per_sliding_window():
    clock = Clock()
    limiter = RateLimiter(RateLimit(3, 60), clock)
    for _ in range(3):
        assert limiter.acquire("ann") == 0
        clock.now += 20
    clock.now -= 10  # 50 s after the first ask
    assert limiter.acquire("ann") == pytest.approx(10)
    assert limiter.acquire("bob") == 0  # someone else is not affected
    clock.now += 10
    assert limiter.acquire("ann") == 0  # the oldest ask left the window
    assert limiter.acquire("ann") == pytest.approx(20)


def test_a_refused_ask_is_not_counted():
    clock = Clock()
    limiter = RateLimiter(RateLimit(1, 10), clock)
    assert limiter.acquire("ann") == 0
    for _ in range(5):
        clock.now += 1
        assert limiter.acquire("ann") > 0
    clock.now += 5.5
    assert limiter.acquire("ann") == 0


def test_users_whose_window_emptied_are_forgotten():
    clock = Clock()
    limiter = RateLimiter(RateLimit(1, 1), clock)
    for n in range(2000):
        limiter.acquire(f"user-{n}")
        clock.now += 0.01
    clock.now += 5
    for n in range(1000):
        limiter.acquire(f"later-{n}")
    assert len(limiter._asks) <= 1000


def test_waits_are_told_in_whole_seconds_never_zero():
    assert whole_seconds(0.001) == 1 and whole_seconds(41.2) == 42 and whole_seconds(3.0) == 3


def test_a_token_revoked_while_serving_says_to_reset_it():
    # 4004: Discord's close code for a token it no longer accepts.
    message = dropped_message(4004, "Server closed connection with code 4004 ()")
    assert "no longer accepts the bot's token" in message and "DISCORD_TOKEN" in message
    other = dropped_message(4005, "Server closed connection with code 4005 ()")
    assert "ended unexpectedly (Server closed" in other and "start serve again" in other
    assert "ended unexpectedly (closed)" in dropped_message(None, "")


@pytest.mark.parametrize("code", [4010, 4011, 4012, 4013, 4014])
def test_a_session_discord_refuses_for_good_says_what_to_change_not_to_just_restart(code):
    # Discord sends these codes again on every try until something changes.
    for message in (refused_message(code, "ignored"), dropped_message(code, "ignored")):
        assert f"close code {code} (" in message and "ignored" not in message
        assert "without that change is refused the same way" in message
        assert "start serve again" not in message


def test_a_token_refused_at_start_up_says_to_put_a_new_one_in_place():
    assert refused_message(4004, "Authentication failed.") == token_refused(4004)
    assert "refused the bot's token (4004)" in token_refused(4004)
    assert "put the new one in DISCORD_TOKEN" in token_refused(4004)
    other = refused_message(4001, "Unknown opcode.")
    assert "close code 4001 (Unknown opcode.)" in other and "discord.api_url" in other


def test_slash_commands_refused_for_a_guild_say_how_to_add_the_bot_and_others_to_retry():
    missing = commands_refused(403, 42, "Missing Access")
    assert missing.startswith("Discord refused the slash commands for guild 42 (403: Missing")
    assert "applications.commands" in missing and "discord.guilds" in missing
    failed = commands_refused(None, None, "connection reset")
    assert failed.startswith("Discord did not take the slash commands globally (connection")
    assert "Start serve again" in failed
