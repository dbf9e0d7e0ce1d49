"""``serve``: the Discord bot, the refresh schedule and the push webhook, in one process.

This is the only module of the engine that knows about hikari, lightbulb and APScheduler.
It builds the ``GatewayBot`` and the lightbulb client, hands the engine's services to the
commands through lightbulb's dependency injection, loads one extension per slash command,
and runs everything until SIGINT or SIGTERM. Stopping is orderly: the schedule stops, the
refresh in progress is cancelled (the index keeps its previous state), answers in flight
get a grace period and are otherwise told the bot is restarting, then the Discord
connection and the database close.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import hikari
import lightbulb

from bot.answer.bounded import BoundedComposer, queue_wait
from bot.answer.providers import build_composer
from bot.answer_desk import AnswerDesk
from bot.config import Config, check_serve
from bot.discord_format.answers import error_reply
from bot.engine import Engine
from bot.errors import DiscordError, PhpbotscoutError
from bot.event_loop import loop_name, reported_elsewhere
from bot.forge.origin import redact_urls
from bot.gateway_close import (
    commands_refused,
    dropped_message,
    no_sessions_left,
    refused_message,
    token_refused,
)
from bot.ratelimit import RateLimiter
from bot.refresher import Refresher
from bot.webhook import PushWebhook
from extensions import messages
from extensions.schedule import RefreshSchedule, intervals

log = logging.getLogger(__name__)

EXTENSIONS = ("extensions.ask", "extensions.sources", "extensions.status")
COMMANDS = ("ask", "sources", "status")
ANSWER_GRACE = 20.0  # seconds answers in flight get to finish when serve is told to stop

Problem = Callable[[BaseException], None]


def build_bot(config: Config) -> hikari.GatewayBot:
    """A gateway bot that talks only to ``discord.api_url`` and caches nothing.

    Slash commands need no privileged intents (nor any intent at all: interactions always
    arrive), and nothing here reads a cache, so both are off.
    """
    token = config.secrets.discord_token
    assert token is not None  # check_serve refused to start without one
    return hikari.GatewayBot(
        token.reveal(),
        banner=None,
        logs=None,  # the entry point configures logging
        suppress_optimization_warning=True,
        intents=hikari.Intents.NONE,
        cache_settings=hikari.impl.CacheSettings(components=hikari.api.CacheComponents.NONE),
        # hikari closes every REST connection after one request by default (a workaround for
        # Windows); keeping them open saves a TCP and TLS handshake on each of the two to three
        # requests an answer takes.
        http_settings=hikari.impl.HTTPSettings(force_close_transports=False),
        rest_url=config.discord_api_url,
    )


@dataclass
class DiscordApp:
    """The bot and its lightbulb client, with the engine's services registered for DI."""

    config: Config
    engine: Engine
    desk: AnswerDesk
    refresher: Refresher
    on_problem: Problem | None = None
    bot: hikari.GatewayBot = field(init=False)
    client: lightbulb.GatewayEnabledClient = field(init=False)
    _sync_failed: Exception | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.bot = build_bot(self.config)
        self.client = lightbulb.client_from_app(
            self.bot, default_enabled_guilds=list(self.config.discord_guilds)
        )
        registry = self.client.di.registry_for(lightbulb.di.Contexts.DEFAULT)
        registry.register_value(Engine, self.engine)
        registry.register_value(AnswerDesk, self.desk)
        registry.register_value(Refresher, self.refresher)
        self.client.error_handler(self._command_failed)
        self.bot.subscribe(hikari.StartedEvent, self._start_client)
        self.bot.subscribe(hikari.StoppingEvent, self.client.stop)
        self.bot.subscribe(hikari.ExceptionEvent, self._listener_failed)

    async def start(self) -> None:
        """Load the extensions, connect, and sync the slash commands.

        Raises:
            DiscordError: Discord refused the token or the slash commands, or could not be
                reached.
        """
        await self.client.load_extensions(*EXTENSIONS)
        loaded = {c._command_data.name for c in self.client.registered_commands}
        missing = sorted(set(COMMANDS) - loaded)
        if missing:  # load_extensions only logs a failure; refusing to run is clearer
            raise DiscordError(f"the slash commands {', '.join(missing)} failed to load")
        try:
            await self.bot.start(check_for_updates=False)
        except hikari.UnauthorizedError:
            await self._close_quietly()
            raise DiscordError(token_refused(401)) from None
        except hikari.GatewayServerClosedConnectionError as exc:
            # Discord refused the session at IDENTIFY; the network reached it, so the general
            # advice below would point at the wrong thing.
            await self._close_quietly()
            raise DiscordError(refused_message(exc.code, exc.reason)) from None
        except (hikari.HikariError, aiohttp.ClientError, OSError) as exc:
            await self._close_quietly()
            # The address, and hikari's own message, may name a URL with a password in it.
            raise DiscordError(
                redact_urls(
                    f"Could not connect to Discord at {self.config.discord_api_url}: {exc}. "
                    "Check the network and discord.api_url."
                )
            ) from None
        except RuntimeError as exc:
            # hikari refuses to start more sessions than Discord's window has left, and fails
            # when a shard closes while others start: both a plain RuntimeError. This clause
            # comes after the one above because every hikari error is a RuntimeError too.
            await self._close_quietly()
            if "more sessions than were allowed" in str(exc):
                raise DiscordError(no_sessions_left()) from None
            raise DiscordError(
                redact_urls(
                    f"Discord closed the connection while serve was starting ({exc}). Start "
                    "serve again; if it keeps happening, check Discord's status and "
                    "discord.api_url."
                )
            ) from None
        if self._sync_failed is not None:
            await self._close_quietly()
            raise DiscordError(redact_urls(_refused_commands(self._sync_failed))) from None
        scope = (
            "guilds " + ", ".join(str(g) for g in self.config.discord_guilds)
            if self.config.discord_guilds
            else "every guild (global commands can take up to an hour to appear)"
        )
        log.info("connected to Discord; /%s synced to %s", ", /".join(COMMANDS), scope)

    async def _start_client(self, event: hikari.StartedEvent) -> None:
        # The client syncs the commands before it takes any interaction; when Discord refuses
        # them it never starts, and every command would be dropped without a word.
        try:
            await self.client.start(event)
        except (hikari.HikariError, aiohttp.ClientError, OSError) as exc:
            self._sync_failed = exc

    async def _close_quietly(self) -> None:
        # It may never have got far enough to have anything to close.
        with contextlib.suppress(hikari.HikariError, RuntimeError):
            await self.bot.close()

    async def close(self) -> None:
        """Disconnect from Discord."""
        await self.bot.close()

    async def _command_failed(
        self, exc: lightbulb.exceptions.ExecutionPipelineFailedException
    ) -> bool:
        ctx = exc.context
        reference = str(ctx.interaction.id)
        cause = exc.causes[0] if exc.causes else exc
        log.error(
            "interaction %s: /%s failed unexpectedly",
            reference,
            ctx.command_data.qualified_name,
            exc_info=(type(cause), cause, cause.__traceback__),
        )
        self._report(cause)
        known = cause if isinstance(cause, PhpbotscoutError) else None
        try:
            await messages.tell(ctx, error_reply(known, reference))
        except (hikari.HikariError, aiohttp.ClientError) as send_failed:
            log.error("interaction %s: could not tell the asker: %s", reference, send_failed)
        return True

    async def _listener_failed(self, event: hikari.ExceptionEvent[hikari.Event]) -> None:
        interaction = getattr(event.failed_event, "interaction", None)
        reference = getattr(interaction, "id", "-")
        log.error("interaction %s: a listener failed", reference, exc_info=event.exc_info)
        self._report(event.exception)

    def _report(self, exc: BaseException) -> None:
        if self.on_problem is not None:
            self.on_problem(exc)


def _refused_commands(exc: Exception) -> str:
    if not isinstance(exc, hikari.HTTPResponseError):
        return commands_refused(None, None, str(exc))
    guild = re.search(r"/guilds/(\d+)/commands", exc.url)
    said = exc.message or str(exc)
    return commands_refused(int(exc.status), int(guild[1]) if guild else None, said)


@dataclass
class Service:
    """Everything ``serve`` runs, started and stopped in order."""

    engine: Engine
    desk: AnswerDesk
    refresher: Refresher
    app: DiscordApp
    schedule: RefreshSchedule
    webhook: PushWebhook | None

    @classmethod
    async def start(cls, config: Config, on_problem: Problem | None = None) -> Service:
        """Check the configuration, open the index, connect to Discord, start the timers.

        Raises:
            ConfigError: ``DISCORD_TOKEN`` is missing, the webhook has no secret or cannot
                listen at ``webhook.listen``, or the answering provider lacks what it needs.
            StoreError: the index cannot be opened, or its ranking helpers cannot start.
            DiscordError: Discord refused the token or could not be reached.
        """
        check_serve(config)
        composer = build_composer(config)
        bound = config.discord_max_concurrent_answers
        wait = queue_wait(config.answer_timeout)
        bounded = BoundedComposer(composer, bound, wait=wait) if composer else None
        engine = await Engine.open(config, composer=bounded)
        refresher = Refresher(engine)
        desk = AnswerDesk(engine, RateLimiter(config.discord_rate_limit))
        app = DiscordApp(config, engine, desk, refresher, on_problem)
        webhook = None
        try:
            # Now, with the index the bot opened: a file put at its path later is not searched.
            await engine.store.start_ranking()
            # Listening first: an address the webhook cannot have stops serve before it spends
            # one of the bot's daily session starts, which a service restarting it would use up.
            if config.webhook_listen is not None:
                assert config.secrets.webhook_secret is not None  # check_serve saw to it
                webhook = PushWebhook(engine, refresher, config.secrets.webhook_secret)
                await webhook.start(*config.webhook_listen)
            await app.start()
        except BaseException:
            if webhook is not None:
                await webhook.stop()
            if app.bot.is_alive:
                await app.close()
            await engine.close()
            raise
        schedule = RefreshSchedule(refresher, intervals(config), on_error=on_problem)
        schedule.start()
        return cls(engine, desk, refresher, app, schedule, webhook)

    @property
    def composer(self) -> BoundedComposer | None:
        """The bounded composer answers go through (``None`` with no model configured)."""
        built = self.engine.composer()
        return built if isinstance(built, BoundedComposer) else None

    async def stop(self, grace: float = ANSWER_GRACE) -> None:
        """Stop in order; the database closes last."""
        log.info("stopping: no new questions, refreshes cancelled")
        bounded = self.composer
        if bounded is not None:
            log.info("model calls: at most %d at once (bound %d)", bounded.peak, bounded.limit)
        self.schedule.pause()  # at once; shut down once every tick has ended (see ``pause``)
        try:
            if self.webhook is not None:
                await self.webhook.stop()
            await self.refresher.close()
        finally:
            self.schedule.shutdown()
        try:
            cancelled = await self.desk.drain(grace)
            if cancelled:
                log.warning("%d askers were told the bot is restarting", cancelled)
        finally:
            try:
                await self.app.close()
            finally:
                await self.engine.close()
        log.info("stopped")


async def serve(config: Config) -> int:
    """Run until SIGINT or SIGTERM (exit 0), or until Discord drops the bot for good (exit 1)."""
    loop = asyncio.get_running_loop()
    log.info("event loop: %s", loop_name(loop))
    stop = asyncio.Event()
    # Taken before starting, which lasts as long as Discord cannot be reached: a signal then
    # undoes what was begun and stops as cleanly as later, not killed without a word.
    _on_signals(loop, stop.set)
    stopping = asyncio.create_task(stop.wait())
    try:
        service = await _start_unless_stopped(config, stopping)
    except BaseException:
        stopping.cancel()
        _on_signals(loop, None)
        raise
    if service is None:
        _on_signals(loop, None)
        log.info("signal received while starting; stopped cleanly")
        return 0
    gateway = asyncio.create_task(service.app.bot.join())
    try:
        await asyncio.wait({gateway, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
    dropped = gateway.done()
    failure = gateway.exception() if dropped and not gateway.cancelled() else None
    if not dropped:
        log.info("signal received")

    def hurry() -> None:
        log.warning("second signal: answers still in flight are stopped now, their askers told")
        service.desk.hurry()

    _on_signals(loop, hurry)  # a second signal cuts the answers' grace short
    try:
        # Closing the bot closes the shard Discord dropped, and hikari hands the shard's
        # failure to the loop once more, which would log it with a traceback as if serve had
        # crashed; the line raised below says what happened and what to do instead.
        with reported_elsewhere(failure):
            await service.stop()
    finally:
        _on_signals(loop, None)
    if not gateway.done():
        gateway.cancel()
    if dropped:
        raise DiscordError(dropped_message(getattr(failure, "code", None), str(failure or "")))
    log.info("stopped cleanly")
    return 0


def _on_signals(loop: asyncio.AbstractEventLoop, handler: Callable[[], None] | None) -> None:
    """Run ``handler`` on SIGINT and SIGTERM; ``None`` gives both their defaults back."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        if handler is None:
            loop.remove_signal_handler(sig)
        else:
            loop.add_signal_handler(sig, handler)


async def _start_unless_stopped(config: Config, stopping: asyncio.Task[Any]) -> Service | None:
    """``Service.start``, or ``None`` when ``stopping`` ends first (what it began is undone)."""
    starting = asyncio.create_task(Service.start(config))
    await asyncio.wait({starting, stopping}, return_when=asyncio.FIRST_COMPLETED)
    if starting.done():
        return starting.result()
    starting.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await starting
    return None
