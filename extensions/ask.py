"""``/ask``: answer a question from the index with numbered citations, or decline it.

Defer, call the engine, format, respond. The feedback buttons under an answer carry the
answer's id in their custom id, so a press is understood by whichever process receives it,
before or after a restart.
"""

from __future__ import annotations

import logging

import hikari
import lightbulb

from bot.answer_desk import AnswerDesk
from bot.discord_format.answers import (
    FEEDBACK_PREFIX,
    error_reply,
    outcome_reply,
    parse_feedback_id,
    rate_limited_reply,
    stale_vote_reply,
    unrecorded_vote_reply,
    unsaved_vote_reply,
    vote_reply,
)
from bot.engine import MAX_QUESTION_CHARS, Engine
from bot.errors import PhpbotscoutError, ShuttingDown, StoreError, UsageError
from extensions import messages

log = logging.getLogger(__name__)
loader = lightbulb.Loader()


@loader.command
class Ask(
    lightbulb.SlashCommand,
    name="ask",
    description="Ask about our software; the answer cites the docs and code it comes from",
):
    """``/ask question:``."""

    question = lightbulb.string(
        "question",
        "What you want to know, in your own words",
        min_length=1,
        max_length=MAX_QUESTION_CHARS,
    )

    @lightbulb.invoke
    async def invoke(
        self,
        ctx: lightbulb.Context,
        desk: AnswerDesk = lightbulb.di.INJECTED,
        engine: Engine = lightbulb.di.INJECTED,
    ) -> None:
        """Answer, or decline, or say why not now."""
        reference = str(ctx.interaction.id)
        try:
            async with desk.visit(str(ctx.user.id)) as visit:
                if not visit.admitted:
                    await messages.respond(
                        ctx, rate_limited_reply(visit.retry_after, desk.limiter.limit)
                    )
                    return
                await ctx.defer()
                try:
                    outcome = await desk.ask(self.question)
                    searched = []
                    if outcome.kind == "declined" and not outcome.passages:
                        states = await engine.sources()
                        searched = [s.name for s in states if s.verdict == "admitted"]
                except PhpbotscoutError as exc:
                    log.warning("interaction %s: /ask not answered: %s", reference, exc)
                    await messages.tell(ctx, error_reply(exc, reference))
                    return
                await messages.edit_original(ctx.interaction, outcome_reply(outcome, searched))
        except ShuttingDown as exc:
            await messages.tell(ctx, error_reply(exc, reference))


@loader.listener(hikari.ComponentInteractionCreateEvent)
@messages.answering_failures
@lightbulb.di.with_di
async def on_feedback(
    event: hikari.ComponentInteractionCreateEvent, engine: Engine = lightbulb.di.INJECTED
) -> None:
    """Record a helpful / not helpful press; pressing again changes the vote."""
    interaction = event.interaction
    vote = await messages.read_press(
        interaction, FEEDBACK_PREFIX, parse_feedback_id, stale_vote_reply()
    )
    if vote is None:
        return
    reference = str(interaction.id)
    # Acknowledged before the vote is written: Discord fails a press not answered within three
    # seconds, and the write may queue behind a refresh that is writing to the index.
    await messages.defer_press(interaction)
    try:
        await engine.vote(vote.answer_id, str(interaction.user.id), vote.helpful)
    except UsageError as exc:
        # The one vote the index refuses: on an answer it does not hold, because the button
        # is older than the index or forged. The presser can still vote on a fresh answer.
        log.warning("interaction %s: vote not recorded: %s", reference, exc)
        await messages.edit_original(interaction, unrecorded_vote_reply(reference))
        return
    except StoreError as exc:
        # Worded for the vote: the general reply speaks of answering a question.
        log.warning("interaction %s: vote not recorded: %s", reference, exc)
        await messages.edit_original(interaction, unsaved_vote_reply(reference))
        return
    except PhpbotscoutError as exc:
        log.warning("interaction %s: vote not recorded: %s", reference, exc)
        await messages.edit_original(interaction, error_reply(exc, reference))
        return
    log.info("interaction %s: vote on answer %d recorded", reference, vote.answer_id)
    await messages.edit_original(interaction, vote_reply(vote.helpful))
