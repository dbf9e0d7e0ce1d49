"""Turning the plain ``Reply`` values of ``bot.discord_format`` into hikari calls.

Every message goes out with allowed mentions set to none, spelled out on each call, so that
a passage or an answer containing ``@everyone`` or a user mention pings nobody.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, TypeVar

import aiohttp
import hikari
import lightbulb

from bot.discord_format.answers import error_reply
from bot.discord_format.listings import listing_notice, unreadable_reply
from bot.discord_format.message import Button, Reply
from bot.engine import Engine
from bot.errors import StoreError
from bot.index.catalog import SourceState

log = logging.getLogger(__name__)
T = TypeVar("T")
PressListener = Callable[[hikari.ComponentInteractionCreateEvent], Awaitable[None]]

# Whether the press being handled was deferred, which hikari keeps no record of: a press that
# fails before its deferral is answered with a message of its own, one that fails after it by
# editing the deferral. Set in the task that handles the press, so presses handled at once
# never see each other's.
_deferred: ContextVar[bool] = ContextVar("press_deferred", default=False)

_STYLES: dict[str, hikari.components.InteractiveButtonTypesT] = {
    "primary": hikari.ButtonStyle.PRIMARY,
    "secondary": hikari.ButtonStyle.SECONDARY,
    "success": hikari.ButtonStyle.SUCCESS,
    "danger": hikari.ButtonStyle.DANGER,
}

NO_MENTIONS: dict[str, Any] = {
    "mentions_everyone": False,
    "user_mentions": False,
    "role_mentions": False,
}


def embeds(reply: Reply) -> list[hikari.Embed]:
    """The reply's embeds as hikari embeds."""
    out = []
    for e in reply.embeds:
        embed = hikari.Embed(
            title=e.title or None, description=e.description, url=e.url or None, color=0x5865F2
        )
        if e.footer:
            embed.set_footer(e.footer)
        out.append(embed)
    return out


def components(buttons: tuple[Button, ...]) -> list[hikari.api.ComponentBuilder]:
    """One action row holding the reply's buttons (none when it has no buttons)."""
    if not buttons:
        return []
    row = hikari.impl.MessageActionRowBuilder()
    for b in buttons:
        row.add_interactive_button(
            _STYLES[b.style], b.custom_id, label=b.label, is_disabled=b.disabled
        )
    return [row]


async def respond(ctx: lightbulb.Context, reply: Reply) -> None:
    """Send ``reply`` as the first response to a command."""
    await ctx.respond(
        reply.content or hikari.UNDEFINED,
        embeds=embeds(reply),
        components=components(reply.buttons),
        ephemeral=reply.ephemeral,
        **NO_MENTIONS,
    )


async def edit_original(
    interaction: hikari.CommandInteraction | hikari.ComponentInteraction, reply: Reply
) -> None:
    """Replace a deferred response ("thinking…") with ``reply``."""
    await interaction.edit_initial_response(
        reply.content or None,
        embeds=embeds(reply),
        components=components(reply.buttons),
        **NO_MENTIONS,
    )


async def tell(ctx: lightbulb.Context, reply: Reply) -> None:
    """Show ``reply`` however the command has got so far.

    Before any response it is the response. After a public deferral, an ephemeral reply
    cannot replace the public one, so the deferral is deleted and the reply follows up,
    visible to the asker alone.
    """
    if not ctx.initial_response_sent.is_set():
        await respond(ctx, reply)
        return
    if reply.ephemeral:
        await ctx.interaction.delete_initial_response()
        await ctx.interaction.execute(
            reply.content or hikari.UNDEFINED,
            embeds=embeds(reply),
            components=components(reply.buttons),
            flags=hikari.MessageFlag.EPHEMERAL,
            **NO_MENTIONS,
        )
        return
    await edit_original(ctx.interaction, reply)


async def tell_unreadable(ctx: lightbulb.Context, doing: str, exc: StoreError) -> None:
    """Tell only the person who ran the command that the index could not be read for ``doing``.

    Logged as a warning with the engine's message, which names the file and says what the
    operator can do; the person is told what to do from where they are.
    """
    reference = str(ctx.interaction.id)
    command = ctx.command_data.qualified_name
    log.warning("interaction %s: /%s not shown: %s", reference, command, exc)
    await tell(ctx, unreadable_reply(doing, reference))


async def tell_presser_unreadable(
    interaction: hikari.ComponentInteraction, doing: str, exc: StoreError
) -> None:
    """``tell_unreadable`` for a button press: a message of its own, the pressed one stays."""
    reference = str(interaction.id)
    log.warning("interaction %s: press of %r not shown: %s", reference, interaction.custom_id, exc)
    await tell_presser(interaction, unreadable_reply(doing, reference))


async def defer_press(interaction: hikari.ComponentInteraction) -> None:
    """Acknowledge a button press at once, with a reply to come that only the presser sees."""
    await interaction.create_initial_response(
        hikari.ResponseType.DEFERRED_MESSAGE_CREATE, flags=hikari.MessageFlag.EPHEMERAL
    )
    _deferred.set(True)


async def update_pressed(interaction: hikari.ComponentInteraction, reply: Reply) -> None:
    """Answer a button press by replacing the message the button is on."""
    await _answer_press(interaction, hikari.ResponseType.MESSAGE_UPDATE, reply)


async def tell_presser(interaction: hikari.ComponentInteraction, reply: Reply) -> None:
    """Answer a button press with a message of its own; the message the button is on stays."""
    await _answer_press(interaction, hikari.ResponseType.MESSAGE_CREATE, reply)


async def _answer_press(
    interaction: hikari.ComponentInteraction,
    kind: hikari.MessageResponseTypesT,
    reply: Reply,
) -> None:
    await interaction.create_initial_response(
        kind,
        reply.content or None,
        embeds=embeds(reply),
        components=components(reply.buttons),
        flags=hikari.MessageFlag.EPHEMERAL if reply.ephemeral else hikari.UNDEFINED,
        **NO_MENTIONS,
    )


def pressed(
    custom_id: str, prefix: str, parse: Callable[[str], T | None], *, reference: object
) -> T | None:
    """What a press of one of a command's buttons asks for.

    ``None`` when the button is another command's (its custom id lacks ``prefix``), or when
    its id cannot be read, which is logged with ``reference`` (the interaction's id): every
    listener hears every press.
    """
    if not custom_id.startswith(prefix):
        return None
    parsed = parse(custom_id)
    if parsed is None:
        log.warning("interaction %s: unreadable button id %r", reference, custom_id)
    return parsed


async def read_press(
    interaction: hikari.ComponentInteraction,
    prefix: str,
    parse: Callable[[str], T | None],
    out_of_date: Reply,
) -> T | None:
    """What a press of one of a command's buttons asks for; ``None`` when nothing is left to do.

    A press of the command's own button whose id cannot be read (forged, or made by an older
    version) is answered with ``out_of_date`` as a message of its own: a press left unanswered
    shows Discord's "This interaction failed", which says nothing of what to do.
    """
    parsed = pressed(interaction.custom_id, prefix, parse, reference=interaction.id)
    if parsed is None and interaction.custom_id.startswith(prefix):
        await tell_presser(interaction, out_of_date)
    return parsed


def answering_failures(listener: PressListener) -> PressListener:
    """``listener`` made to answer a press it fails on unexpectedly, as commands are answered.

    Left unanswered, the press would show Discord's "This interaction failed". The failure is
    logged with the interaction's id as its reference, and only the presser is told that
    something went wrong, what to do and the reference, whether or not the press was deferred.
    """

    async def answered(event: hikari.ComponentInteractionCreateEvent) -> None:
        started = _deferred.set(False)
        try:
            await listener(event)
        except Exception as exc:
            await _tell_failed(event.interaction, exc)
        finally:
            _deferred.reset(started)

    return answered


async def _tell_failed(interaction: hikari.ComponentInteraction, exc: Exception) -> None:
    reference = str(interaction.id)
    log.error(
        "interaction %s: press of %r failed unexpectedly",
        reference,
        interaction.custom_id,
        exc_info=(type(exc), exc, exc.__traceback__),
    )
    reply = error_reply(None, reference)
    try:
        if _deferred.get():
            await edit_original(interaction, reply)
        else:
            await tell_presser(interaction, reply)
    except (hikari.HikariError, aiohttp.ClientError) as send_failed:
        log.error("interaction %s: could not tell the presser: %s", reference, send_failed)


async def listed(engine: Engine) -> tuple[list[SourceState], str]:
    """Every source, and what ``/sources`` says first of a failed GitLab listing.

    Raises:
        StoreError: the index could not be read.
    """
    states = await engine.sources()
    return states, await listing_failure_notice(engine, states)


async def listing_failure_notice(engine: Engine, states: Sequence[SourceState]) -> str:
    """What ``/sources`` and ``/status`` say first of a failed GitLab listing; "" if none.

    Raises:
        StoreError: the index could not be read.
    """
    failure = await engine.listing_failure()
    return listing_notice(failure, states, datetime.now(UTC)) if failure is not None else ""
