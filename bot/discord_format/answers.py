"""What ``/ask`` shows: an answer with numbered citations, a decline, or the passages (pure).

Citations come first when space is short: the sources get their room before the answer is
measured, a citation is always shown whole or left out whole (with a line saying how many
were left out), and an answer too long for its embed is cut at a paragraph end with a note.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.answer.outcome import Citation, Outcome
from bot.config import RateLimit
from bot.discord_format.message import (
    CONTENT_LIMIT,
    EMBED_DESCRIPTION_LIMIT,
    EMBEDS_LIMIT,
    EMBEDS_TOTAL_LIMIT,
    Button,
    Embed,
    Reply,
    discord_len,
    escape_markdown,
    escaped_within,
    fit_lines,
    link,
    markdown_within,
    safe_url,
    visible_within,
)
from bot.errors import (
    Busy,
    EmptyIndexError,
    PhpbotscoutError,
    ProviderError,
    ShuttingDown,
    UsageError,
)
from bot.index.retriever import Result
from bot.ratelimit import whole_seconds
from bot.render import age_text

FEEDBACK_PREFIX = "fb:"
SOURCES_BUDGET = 1800  # the most the citation list may take before the answer is measured
PASSAGE_EXCERPT = 600  # characters of each passage shown when no model is configured
LABEL_LIMIT = 180

_FEEDBACK_ID = re.compile(r"fb:(\d{1,18}):([yn])")


@dataclass(frozen=True, slots=True)
class Vote:
    """What a feedback button press says: this answer, helpful or not."""

    answer_id: int
    helpful: bool


def feedback_id(answer_id: int, helpful: bool) -> str:
    """The custom id of a feedback button; it carries everything a press needs."""
    return f"{FEEDBACK_PREFIX}{answer_id}:{'y' if helpful else 'n'}"


def parse_feedback_id(custom_id: str) -> Vote | None:
    """The vote a feedback button's custom id stands for, or ``None`` if it is not one."""
    m = _FEEDBACK_ID.fullmatch(custom_id)
    return Vote(int(m.group(1)), m.group(2) == "y") if m else None


def feedback_buttons(answer_id: int) -> tuple[Button, ...]:
    """The helpful / not helpful pair under an answer."""
    return (
        Button(feedback_id(answer_id, True), "Helpful", "success"),
        Button(feedback_id(answer_id, False), "Not helpful", "secondary"),
    )


def place_label(repo: str, path: str, heading: str, symbol: str) -> str:
    """``repo · path — heading`` (or the symbol), at most ``LABEL_LIMIT`` characters."""
    where = symbol or heading
    label = f"{repo} · {path}" + (f" — {where}" if where else "")
    return visible_within(label, LABEL_LIMIT)


def citation_line(c: Citation) -> str:
    """One numbered citation as a Markdown link; shown whole or not at all.

    A source with no web address (a local repository) is cited by its location instead.
    """
    label = place_label(c.repo, c.path, c.heading, c.symbol)
    if safe_url(c.url):
        return f"**[{c.n}]** {link(label, c.url)}"
    return f"**[{c.n}]** {escape_markdown(label)} ({escaped_within(c.url, 200)})"


def stale_caveat(stale: Sequence[str]) -> str:
    """The caveat for an answer drawn from sources past their refresh interval."""
    names, _ = fit_lines(
        [escape_markdown(n) for n in stale], 300, lambda k: f"and {k} more", sep=", "
    )
    verb = "has" if len(stale) == 1 else "have"
    return (
        f"⚠ {names} {verb} not been refreshed within the refresh interval, so this may be "
        "out of date."
    )


def outcome_reply(outcome: Outcome, indexed: Sequence[str] = ()) -> Reply:
    """The reply for any outcome; ``indexed`` names the sources searched (for a decline)."""
    if outcome.kind == "answered":
        return answer_reply(outcome)
    if outcome.kind == "declined":
        return decline_reply(outcome, indexed)
    return passages_reply(outcome)


def answer_reply(outcome: Outcome) -> Reply:
    """An answer in one embed, its numbered citations in another, and the feedback buttons."""
    citations: list[Citation] = []
    for c in outcome.citations:  # a passage cited twice is listed once
        if all(c.n != kept.n for kept in citations):
            citations.append(c)
    lines = [citation_line(c) for c in citations]
    sources, _ = fit_lines(
        lines, SOURCES_BUDGET, lambda k: f"…and {k} more source{'s' if k != 1 else ''}"
    )
    sources_embed = Embed(sources, title="Sources")
    footer = f"Answered by {outcome.model}" if outcome.model else ""
    room = EMBEDS_TOTAL_LIMIT - sources_embed.size() - discord_len("Answer") - discord_len(footer)
    budget = min(EMBED_DESCRIPTION_LIMIT, room)
    note = "*The answer was too long to show whole; ask something narrower for the rest.*"
    text = markdown_within(outcome.answer or "", budget, note)
    answer = Embed(text, title="Answer", footer=footer)
    content = stale_caveat(outcome.stale) if outcome.stale else ""
    buttons = feedback_buttons(outcome.answer_id) if outcome.answer_id is not None else ()
    return Reply(content, (answer, sources_embed), buttons)


_DECLINE_LEADS = {
    "nothing_matched": "I couldn't find anything about that in the indexed documentation.",
    "composer_declined": "The indexed documentation doesn't answer that, so I won't guess.",
    "ungrounded": (
        "I drafted an answer but couldn't check every part of it against the documentation, "
        "so I'm not showing it."
    ),
}


def decline_reply(outcome: Outcome, indexed: Sequence[str] = ()) -> Reply:
    """A polite decline: why, what was searched, and that the gap was recorded."""
    decline = outcome.decline
    kind = decline.kind if decline else "nothing_matched"
    parts = [_DECLINE_LEADS[kind]]
    if decline and kind != "nothing_matched":
        parts.append("Why: " + escaped_within(decline.reason, 500))
    gap = (
        "I've recorded the question as a documentation gap, so the people who write the "
        "docs can see what is missing."
        if not outcome.unrecorded
        else "I couldn't record the question as a documentation gap this time (the index was "
        "busy or could not be written); if it matters, ask again later or tell a moderator."
    )
    room = CONTENT_LIMIT - sum(discord_len(p) + 2 for p in parts) - discord_len(gap) - 2
    parts.append(_searched(outcome.passages, indexed, room))
    parts.append(gap)
    return Reply("\n\n".join(parts))


def _searched(passages: Sequence[Result], indexed: Sequence[str], room: int) -> str:
    if passages:
        places = list(dict.fromkeys(f"{p.repo} · {p.path}" for p in passages))
        lead = "Closest passages searched: "
    else:
        places = list(indexed)
        lead = "Sources searched: " if places else "Searched: the whole index"
    if not places:
        return lead
    shown, _ = fit_lines(
        [escape_markdown(p) for p in places],
        room - discord_len(lead),
        lambda k: f"and {k} more",
        sep="; ",
    )
    return lead + shown


NO_MODEL = (
    "No answering model is configured, so these are the passages an answer would be drawn "
    "from, in the order the model would read them, each linked to its source."
)


def passages_reply(outcome: Outcome) -> Reply:
    """With no model configured: the ranked passages, each a linked embed with an excerpt."""
    embeds: list[Embed] = []
    total = 0
    for n, p in enumerate(outcome.passages, 1):
        title = f"[{n}] " + place_label(p.repo, p.path, p.heading, p.symbol)
        excerpt = markdown_within(p.text.strip(), PASSAGE_EXCERPT, "…")
        embed = Embed(excerpt or "(empty passage)", title=title, url=safe_url(p.url))
        if len(embeds) == EMBEDS_LIMIT or total + embed.size() > EMBEDS_TOTAL_LIMIT:
            break
        embeds.append(embed)
        total += embed.size()
    parts = [NO_MODEL]
    left_out = len(outcome.passages) - len(embeds)
    if left_out:
        parts.append(f"{left_out} more passage{'s' if left_out != 1 else ''} did not fit.")
    if outcome.stale:
        parts.append(stale_caveat(outcome.stale))
    return Reply("\n\n".join(parts), tuple(embeds))


def rate_limited_reply(wait: float, limit: RateLimit) -> Reply:
    """Told only to the asker: how long to wait, and the limit that applies."""
    window = age_text(limit.per_seconds)
    per = "question" if limit.count == 1 else "questions"
    return Reply(
        f"You're asking faster than I can keep up with: {limit.count} {per} every {window} "
        f"per person. Try again in {whole_seconds(wait)} s.",
        ephemeral=True,
    )


def error_reply(error: PhpbotscoutError | None, reference: str) -> Reply:
    """Told only to the asker: what went wrong, what to do, and a reference for the logs."""
    ref = f"(reference {reference})"
    if error is None:
        text = (
            "Something went wrong on my side while handling that. Try again in a minute; if it "
            f"keeps happening, tell a moderator and quote {ref[1:-1]}."
        )
    elif isinstance(error, ShuttingDown):
        text = str(error)
    elif isinstance(error, Busy):
        text = f"{error} {ref}"  # nothing failed: the asker only needs to try again
    elif isinstance(error, UsageError):
        text = f"{error} {ref}"
    elif isinstance(error, ProviderError):
        text = (
            f"The answering model failed, so I have no answer: {error} Try again in a minute; "
            f"if it keeps failing, tell a moderator {ref}."
        )
    elif isinstance(error, EmptyIndexError):
        # The engine's message names the index file: meant for the operator, not the channel.
        text = (
            "Nothing has been indexed yet, so there is nothing to answer from. Tell a "
            f"moderator: the index needs building {ref}."
        )
    else:
        # Other failures (the index unreadable, say) carry file paths for the log only.
        text = (
            "I can't answer right now: the index could not be read. Try again in a minute; if "
            f"it keeps happening, tell a moderator {ref}."
        )
    return Reply(escaped_within(text, CONTENT_LIMIT), ephemeral=True)


def stale_vote_reply() -> Reply:
    """Told only to the presser of a feedback button whose id cannot be read: forged, or stale."""
    return Reply(
        "This button is out of date, so no vote was recorded. Ask again with /ask to vote on a "
        "fresh answer.",
        ephemeral=True,
    )


def unrecorded_vote_reply(reference: str) -> Reply:
    """Told only to the presser of a feedback button whose answer the index does not hold."""
    return Reply(
        "That answer is not among the answers I have recorded (the index may have been made "
        "anew since it was given), so no vote was recorded. Ask again with /ask to vote on a "
        f"fresh answer (reference {reference}).",
        ephemeral=True,
    )


def unsaved_vote_reply(reference: str) -> Reply:
    """Told only to the presser of a feedback button whose vote the index could not take."""
    return Reply(
        "Your vote could not be saved: the index could not be written. Press the button again "
        f"in a minute; if it keeps happening, tell a moderator (reference {reference}).",
        ephemeral=True,
    )


def vote_reply(helpful: bool) -> Reply:
    """Thanks for a feedback press, told only to the voter."""
    verdict = "helpful" if helpful else "not helpful"
    return Reply(
        f"Thanks: your vote is recorded as {verdict}. Press the other button to change it.",
        ephemeral=True,
    )
