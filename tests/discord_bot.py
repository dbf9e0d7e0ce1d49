"""The real bot, started exactly as ``serve`` starts it, against the fake Discord.

``BotThread`` runs ``bot.app.Service`` (the real ``GatewayBot``, lightbulb client, schedule
and webhook) on an event loop in a thread of its own, so sync tests and Gherkin steps drive
it through the fake Discord without sharing a loop with it. Everything the bot would
otherwise swallow is collected as a problem: a command's failure reaching the error handler,
a listener's ``ExceptionEvent``, a job failing in the schedule, the loop's exception handler
and any ERROR log line. ``take_problems()`` hands them over so the fixture can fail the test.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest

from bot import config as config_module
from bot.app import Service
from bot.config import Config
from bot.engine import Engine
from tests.fakes.anthropic_server import KEY
from tests.fakes.discord import GUILD_ID, TOKEN, FakeDiscord, Interaction, Reply

T = TypeVar("T")
WATCHED_LOGGERS = ("bot", "extensions", "hikari", "lightbulb", "apscheduler", "aiohttp")


def merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """``base`` with the tables of ``extra`` merged in, key by key."""
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def bot_config(
    root: Path,
    estate: Path,
    discord: FakeDiscord,
    *,
    anthropic_url: str | None = None,
    extra: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
) -> Config:
    """A configuration indexing ``estate``, answering through the fake Anthropic API when
    ``anthropic_url`` is given (else with no model), talking to the fake Discord."""
    raw: dict[str, Any] = {
        "sources": {"local": [str(estate)]},
        "index": {"path": str(root / "index.sqlite"), "clones": str(root / "clones")},
        "discord": {"api_url": discord.api_url, "guilds": [GUILD_ID]},
        "answer": {"provider": "anthropic" if anthropic_url else "none", "timeout": "5s"},
    }
    environ = {"HOME": str(root), "DISCORD_TOKEN": TOKEN, **(env or {})}
    if anthropic_url:
        environ |= {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": anthropic_url}
    return config_module.from_mapping(merge(raw, extra or {}), environ, root)


def build_index(config: Config) -> None:
    """Index every configured source (``index build``), on a loop of its own."""

    async def build() -> None:
        async with await Engine.open(config) as engine:
            report = await engine.refresh()
            assert report.ok, report

    asyncio.run(build())


class _ProblemLog(logging.Handler):
    def __init__(self, problems: list[str]) -> None:
        super().__init__(logging.ERROR)
        self.problems = problems

    def emit(self, record: logging.LogRecord) -> None:
        self.problems.append(f"logged: {record.name}: {record.getMessage()}")


class BotThread:
    """``Service`` running on its own event loop in a daemon thread."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.loop = asyncio.new_event_loop()
        self.loop.set_exception_handler(self._loop_problem)
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._problems: list[str] = []
        self._lock = threading.Lock()
        self._log = _ProblemLog(self._problems)
        self.service: Service | None = None

    def start(self) -> BotThread:
        for name in WATCHED_LOGGERS:
            logging.getLogger(name).addHandler(self._log)
        self._thread.start()
        self.service = self.run(Service.start(self.config, on_problem=self._problem))
        return self

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 20.0) -> T:
        """Run ``coro`` on the bot's loop and return its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self, grace: float = 5.0) -> None:
        try:
            if self.service is not None:
                self.run(self.service.stop(grace))
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(10)
            self.loop.close()
            for name in WATCHED_LOGGERS:
                logging.getLogger(name).removeHandler(self._log)

    @property
    def engine(self) -> Engine:
        assert self.service is not None
        return self.service.engine

    def _problem(self, exc: BaseException) -> None:
        with self._lock:
            self._problems.append(f"swallowed: {exc!r}")

    def _loop_problem(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        with self._lock:
            self._problems.append(f"loop: {context.get('message')}: {context.get('exception')!r}")

    def problems_so_far(self) -> list[str]:
        """The problems collected so far, left in place."""
        with self._lock:
            return list(self._problems)

    def take_problems(self) -> list[str]:
        """Every swallowed exception and ERROR log line since the last call."""
        with self._lock:
            taken = list(self._problems)
            self._problems.clear()
        return taken


@contextmanager
def watched(
    bot: BotThread, discord: FakeDiscord, *, messages_sent: bool = True
) -> Iterator[BotThread]:
    """One test's use of a shared bot, failing the test on anything the bot swallowed.

    The fake is reset first. With ``messages_sent``, the test must also have made the bot post
    something, and nothing it posted may ping anyone.
    """
    discord.reset()
    yield bot
    problems = bot.take_problems()
    if problems:
        pytest.fail("the bot swallowed: " + "; ".join(problems))
    if messages_sent:
        sent = discord.messages_sent()
        assert sent
        assert all(m["allowed_mentions"] == {"parse": []} for m in sent)


def ask(discord: FakeDiscord, question: str, user: int, timeout: float = 5.0) -> Reply:
    """``/ask question:`` as ``user``; the message the bot finally showed."""
    return discord.reply(discord.command("ask", {"question": question}, user=user), 1, timeout)


def final(discord: FakeDiscord, interaction: Interaction, timeout: float = 5.0) -> Reply:
    """The first message shown for ``interaction``."""
    return discord.reply(interaction, 1, timeout)


def connected(discord: FakeDiscord) -> bool:
    """Whether a bot has identified and synced its slash commands to the fake's guild."""
    names = {c["name"] for c in discord.commands.get(GUILD_ID, [])}
    return discord.identified >= 1 and names == {"ask", "sources", "status"}


def wait_for(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    """Poll ``condition`` (state of the bot's own, such as a queue length) until it holds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("the condition never held")
        time.sleep(0.002)


class HeldWrite:
    """The index's write transaction, held on the bot's loop as a refresh holds it."""

    def __init__(self, bot: BotThread) -> None:
        self._bot = bot
        self._release = bot.run(_new_event())
        taken = threading.Event()

        async def hold() -> None:
            async with bot.engine.store.write():
                taken.set()
                await self._release.wait()

        self._holding = asyncio.run_coroutine_threadsafe(hold(), bot.loop)
        assert taken.wait(5), "the index's write transaction was never taken"

    def release(self) -> None:
        """Let the transaction commit, and wait until it has."""
        self._bot.loop.call_soon_threadsafe(self._release.set)
        self._holding.result(5)


async def _new_event() -> asyncio.Event:
    return asyncio.Event()  # made on the loop that waits on it
