"""``/sources [name]``: every source's verdict and deciding clause, or why one is (not) indexed.

The moderator's tool for explaining an absence. The list is paged with buttons whose custom
ids carry the page number, so they keep working across restarts.
"""

from __future__ import annotations

from datetime import UTC, datetime

import hikari
import lightbulb

from bot.discord_format.listings import (
    SOURCES_PREFIX,
    parse_sources_page_id,
    source_reply,
    sources_reply,
    stale_page_reply,
)
from bot.engine import Engine
from bot.errors import StoreError
from extensions import messages

loader = lightbulb.Loader()


@loader.command
class Sources(
    lightbulb.SlashCommand,
    name="sources",
    description="Which repositories are indexed, and the rule that decided each one",
):
    """``/sources [name:]``."""

    source = lightbulb.string(
        "name", "One repository to explain (its full path)", default=None, max_length=200
    )

    @lightbulb.invoke
    async def invoke(self, ctx: lightbulb.Context, engine: Engine = lightbulb.di.INJECTED) -> None:
        """List the sources, or explain one."""
        await ctx.defer()
        try:
            states, notice = await messages.listed(engine)
        except StoreError as exc:
            doing = "explain that repository" if self.source else "list the sources"
            await messages.tell_unreadable(ctx, doing, exc)
            return
        if self.source:
            reply = source_reply(self.source, states, datetime.now(UTC), notice)
        else:
            reply = sources_reply(states, notice=notice)
        await messages.edit_original(ctx.interaction, reply)


@loader.listener(hikari.ComponentInteractionCreateEvent)
@messages.answering_failures
@lightbulb.di.with_di
async def on_page(
    event: hikari.ComponentInteractionCreateEvent, engine: Engine = lightbulb.di.INJECTED
) -> None:
    """Show the page a Previous / Next button asks for, in place."""
    interaction = event.interaction
    page = await messages.read_press(
        interaction, SOURCES_PREFIX, parse_sources_page_id, stale_page_reply()
    )
    if page is None:
        return
    try:
        states, notice = await messages.listed(engine)
    except StoreError as exc:
        # Left unanswered, the press would show Discord's "This interaction failed"; the list
        # stays as it was, and only the presser is told why the page did not come.
        await messages.tell_presser_unreadable(interaction, "show that page of the sources", exc)
        return
    await messages.update_pressed(interaction, sources_reply(states, page, notice))
