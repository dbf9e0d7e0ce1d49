"""``/status``: freshness of every indexed source, the last refresh and errors, the totals."""

from __future__ import annotations

from datetime import UTC, datetime

import lightbulb

from bot.discord_format.listings import status_reply
from bot.engine import Engine
from bot.errors import StoreError
from extensions import messages

loader = lightbulb.Loader()


@loader.command
class Status(
    lightbulb.SlashCommand,
    name="status",
    description="How fresh the index is: each source's last refresh, errors and totals",
):
    """``/status``."""

    @lightbulb.invoke
    async def invoke(self, ctx: lightbulb.Context, engine: Engine = lightbulb.di.INJECTED) -> None:
        """Show the index's freshness and the answering provider."""
        await ctx.defer()
        try:
            statuses = await engine.status()
            unembedded = await engine.unembedded()
            # Every source, rejected ones too: a GitLab project the listing rejected is known.
            notice = await messages.listing_failure_notice(engine, await engine.sources())
        except StoreError as exc:
            await messages.tell_unreadable(ctx, "show the index status", exc)
            return
        config = engine.config
        model = config.answer_model if config.answer_provider != "none" else None
        reply = status_reply(
            statuses, config.answer_provider, model, datetime.now(UTC), unembedded, notice
        )
        await messages.edit_original(ctx.interaction, reply)
