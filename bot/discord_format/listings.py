"""What ``/sources`` and ``/status`` show (pure): verdicts, one source explained, freshness.

``/sources`` pages through every source ten at a time; the page buttons carry the page
number in their custom id, so they keep working after a restart. ``/sources NAME`` is the
moderator's answer to "why does the bot not know about X?".
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Sequence
from datetime import datetime

from bot.discord_format.message import (
    EMBED_DESCRIPTION_LIMIT,
    Button,
    Embed,
    Reply,
    discord_len,
    escaped_within,
    fit_lines,
    link,
    safe_url,
    visible_within,
)
from bot.engine import SourceStatus
from bot.forge.origin import redact_urls
from bot.forge.predicate import named_by
from bot.index.catalog import ListingFailure, SourceState
from bot.render import age_text, when_text

SOURCES_PREFIX = "src:page:"
PAGE_SIZE = 10
ENTRY_LIMIT = 380  # one source's line; ten of them stay far inside an embed
# A listed name, escaped: shortened on its own, so that its verdict and clause keep the rest of
# the line.
LISTED_NAME_LIMIT = 180
# What one source's explanation shows of each long text, so that a long error is cut short
# rather than left out of the embed whole, taking what follows it along.
DETAIL_LIMIT = 500
ERROR_LIMIT = 800
NAME_LIMIT = 100
CLAUSE_LIMIT = 60  # a rule's name (`feed`, `archived`): short, and bounded like all shown text
# What the failed GitLab listing said: enough for an operator to recognise it, short enough that
# the notice stays one short paragraph above the list.
LISTING_ERROR_LIMIT = 400

_PAGE_ID = re.compile(r"src:page:(\d{1,6})")


def sources_page_id(page: int) -> str:
    """The custom id of a button that shows page ``page`` of ``/sources``."""
    return f"{SOURCES_PREFIX}{page}"


def parse_sources_page_id(custom_id: str) -> int | None:
    """The page a ``/sources`` button asks for, or ``None`` if it is not one."""
    m = _PAGE_ID.fullmatch(custom_id)
    return int(m.group(1)) if m else None


def stale_page_reply() -> Reply:
    """Told only to the presser of a page button whose id cannot be read: forged, or stale."""
    return Reply(
        "This button is out of date, so it can't show a page. Run /sources again for a fresh list.",
        ephemeral=True,
    )


def unreadable_reply(doing: str, reference: str) -> Reply:
    """Told only to whoever asked, when the index could not be read for ``doing``.

    ``doing`` is what the command or button was for ("list the sources"), so the message speaks
    of that. The engine's own message names the index file: it is for the log, not the channel.
    """
    return Reply(
        f"I can't {doing} right now: the index could not be read. Try again in a minute; if it "
        f"keeps happening, tell a moderator (reference {reference}).",
        ephemeral=True,
    )


def page_count(items: int) -> int:
    """How many pages ``items`` sources take (at least one)."""
    return max(1, math.ceil(items / PAGE_SIZE))


def _verdict_counts(states: Sequence[SourceState]) -> str:
    counts = {v: sum(1 for s in states if s.verdict == v) for v in ("admitted", "rejected")}
    unresolved = len(states) - counts["admitted"] - counts["rejected"]
    return (
        f"{len(states)} source{'s' if len(states) != 1 else ''}: {counts['admitted']} indexed, "
        f"{counts['rejected']} rejected, {unresolved} unresolved."
    )


def listing_notice(failure: ListingFailure, states: Sequence[SourceState], now: datetime) -> str:
    """Why GitLab's projects are missing or out of date in ``/sources``, for a moderator.

    What the listing said is shown as the build recorded it, its addresses redacted once more
    in case: it names the place that failed, never a token. Configuration is named by its keys
    only, for an operator to look at; their values are not for the channel.
    """
    known = any(s.origin == "gitlab" for s in states)
    held = (
        "its projects are listed as the last listing that worked left them: one added since is "
        "missing, one removed since is still listed"
        if known
        else "none of its projects is known yet"
    )
    group = escaped_within(failure.group, NAME_LIMIT)
    said = escaped_within(redact_urls(failure.error).rstrip(". "), LISTING_ERROR_LIMIT)
    return (
        f"⚠ GitLab's listing of **{group}** failed in the last build "
        f"({when_text(failure.failed_at, now)}), so {held}. It said: {said}. An operator can check "
        "`gitlab.url.api`, `GITLAB_TOKEN` and that GitLab can be reached, then build the "
        "index again."
    )


def sources_reply(states: Sequence[SourceState], page: int = 1, notice: str = "") -> Reply:
    """One page of every source's verdict and the clause that decided it.

    ``notice`` (``listing_notice``), when the last GitLab listing failed, comes first: without
    it the list looks complete when it is not.
    """
    if not states:
        if notice:
            return Reply(f"No sources are known yet.\n\n{notice}")
        return Reply(
            "No sources are known yet: nothing has been discovered. An operator builds the "
            "index with `python -m bot.cli index build`."
        )
    pages = page_count(len(states))
    page = min(max(page, 1), pages)
    shown = states[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    lines = [_listed(s) for s in shown]
    title = "Sources" + (f" — page {page} of {pages}" if pages > 1 else "")
    content = _verdict_counts(states) + " `/sources name:` explains one of them."
    if notice:
        content = f"{notice}\n\n{content}"
    buttons: tuple[Button, ...] = ()
    if pages > 1:
        buttons = (
            Button(sources_page_id(page - 1), "Previous", disabled=page == 1),
            Button(sources_page_id(page + 1), "Next", disabled=page == pages),
        )
    return Reply(content, (Embed("\n".join(lines), title=title),), buttons)


def _listed(state: SourceState) -> str:
    """One source's line in ``/sources``, at most ``ENTRY_LIMIT`` characters.

    Its parts are shortened before they are escaped and marked up, so no cut falls inside an
    escape or the name's bold markup.
    """
    said = (
        f"**{escaped_within(state.name, LISTED_NAME_LIMIT)}** — {state.verdict} by "
        f"{escaped_within(state.clause, CLAUSE_LIMIT)}: "
    )
    return said + escaped_within(state.detail, ENTRY_LIMIT - discord_len(said))


def _explain(state: SourceState) -> str:
    clause = escaped_within(state.clause, CLAUSE_LIMIT)
    detail = escaped_within(state.detail, DETAIL_LIMIT)
    if state.verdict == "admitted":
        return f"**Indexed**: answers may cite it (admitted by {clause}: {detail})."
    if state.verdict == "rejected":
        return (
            f"**Not indexed**: the {clause} rule rejected it: {detail}. Nothing from it is "
            "read or cited while that holds."
        )
    return (
        f"**Not indexed for now**: the {clause} check could not be completed: {detail}. It "
        "is tried again on the next refresh."
    )


def source_reply(
    name: str, states: Sequence[SourceState], now: datetime, notice: str = ""
) -> Reply:
    """Why one repository is, or is not, indexed; close names when none is called that.

    The name is matched as ``index build --source`` and the push webhook match it: letter
    case aside, unless it is spelled exactly as one source is. ``notice`` (``listing_notice``)
    is shown for a name no source has and for a GitLab project, whose verdict a failed listing
    has left as it was; a repository on disk owes nothing to the listing.
    """
    found = named_by(name, [s.name for s in states])
    if not found:
        return _unknown_source(name, states, notice)
    if found[1:]:
        return _several_sources(name, found)
    state = next(s for s in states if s.name == found[0])
    lines = [_explain(state), ""]
    if notice and state.origin == "gitlab":
        lines = [notice, "", *lines]  # first, where fit_lines never leaves it out
    facts = [
        ("Where", escaped_within(state.location, DETAIL_LIMIT)),
        ("Project", link(state.web_url, state.web_url) if state.web_url else ""),
        ("Docs site", link(state.site_url, state.site_url) if state.site_url else ""),
        ("Indexed commit", (state.branch_commit or "")[:12]),
        ("Last refreshed", when_text(state.refreshed_at, now)),
        ("Holds", f"{state.documents} documents, {state.chunks} passages"),
        ("Last error", escaped_within(state.last_error or "", ERROR_LIMIT)),
        ("Release lookup", escaped_within(state.release_error or "", ERROR_LIMIT)),
    ]
    lines += [f"**{label}:** {value}" for label, value in facts if value]
    text, _ = fit_lines(lines, EMBED_DESCRIPTION_LIMIT, lambda k: "…")
    url = safe_url(state.web_url or state.site_url or "")
    return Reply("", (Embed(text, title=visible_within(state.name, 250), url=url),))


def _several_sources(name: str, found: Sequence[str]) -> Reply:
    shown = ", ".join(f"**{escaped_within(n, NAME_LIMIT)}**" for n in found)
    return Reply(
        f"More than one source is called **{escaped_within(name, NAME_LIMIT)}**, in letter "
        f"case alone: {shown}. Give the name spelled exactly as one of them is."
    )


def _unknown_source(name: str, states: Sequence[SourceState], notice: str) -> Reply:
    names = [s.name for s in states]
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
    shown = [f"**{escaped_within(n, NAME_LIMIT)}**" for n in (name, *close)]
    parts = [f"No source called {shown[0]} is known to the index."]
    if notice:
        parts.append(notice)  # the likeliest reason a GitLab project is absent, so it comes next
    if close:
        parts.append("Did you mean " + ", ".join(shown[1:]) + "?")
    parts.append(
        "A repository is only known once discovery has seen it: a repository configured in "
        "`sources.local`, or a project of the configured GitLab group that the estate feed "
        "lists. If it should be indexed, an operator can check the configuration and run "
        "`python -m bot.cli index build`; `/sources` lists everything known."
    )
    return Reply("\n\n".join(parts))


def status_reply(
    statuses: Sequence[SourceStatus],
    provider: str,
    model: str | None,
    now: datetime,
    unembedded: int | None = None,
    notice: str = "",
) -> Reply:
    """Freshness of every indexed source, the last refresh, the last errors and the totals.

    ``notice`` (``listing_notice``), when the last GitLab listing failed, comes first: every
    source's last refresh can look recent while no project has been discovered for days.

    Failing sources come first, then unresolved ones (answered from their last index, if they
    have one), then stale ones; when they do not all fit, the fresh ones are the ones
    summarised as "and N more". ``unembedded`` is how many passages hybrid retrieval has no
    vector for (``None`` in bm25 mode), said with what to do when there are any.
    """
    order = sorted(
        statuses,
        key=lambda s: (not s.state.last_error, not _unresolved(s), not s.stale, s.state.name),
    )
    lines = [_status_line(s, now) for s in order]
    documents = sum(s.state.documents for s in statuses)
    chunks = sum(s.state.chunks for s in statuses)
    stale = sum(1 for s in statuses if s.stale)
    failing = sum(1 for s in statuses if s.state.last_error)
    unresolved = sum(1 for s in statuses if _unresolved(s))
    stamps = [s.state.refreshed_at for s in statuses if s.state.refreshed_at]
    answers = provider
    if provider != "none" and model:
        answers += " (`" + model.replace("`", "") + "`)"
    header = [
        *([notice, ""] if notice else []),
        f"**Answers:** {answers}",
        f"**Totals:** {len(statuses)} sources, {documents} documents, {chunks} passages; "
        f"{stale} stale, {failing} failing, {unresolved} unresolved",
        f"**Last refresh:** {when_text(max(stamps, default=None), now)}",
        *_unembedded_lines(unembedded, chunks),
        "",
    ]
    room = EMBED_DESCRIPTION_LIMIT - sum(discord_len(h) + 1 for h in header)
    body, _ = fit_lines(
        lines or ["No source is indexed yet."],
        room,
        lambda k: f"…and {k} more (`python -m bot.cli index status` lists all)",
    )
    return Reply("", (Embed("\n".join([*header, body]), title="Index status"),))


def _unembedded_lines(unembedded: int | None, chunks: int) -> list[str]:
    if not unembedded:
        return []
    verb = "has" if unembedded == 1 else "have"
    return [
        f"⚠ **Without vectors:** {unembedded} of {chunks} passages {verb} no vector yet, so "
        "questions find them by their words and names alone. An operator runs "
        "`python -m bot.cli index build` to embed them."
    ]


def _unresolved(s: SourceStatus) -> bool:
    return s.state.verdict == "unresolved"


def _status_line(s: SourceStatus, now: datetime) -> str:
    # Shortened on its own, as /sources does: a line too long for the embed would be left out
    # whole, and every line after it with it.
    name = escaped_within(s.state.name, LISTED_NAME_LIMIT)
    when = f"refreshed {when_text(s.state.refreshed_at, now)}, every {age_text(s.interval)}"
    if _unresolved(s):
        # Its last index still answers, however old, if it has one; say so and why, kept short
        # for the embed.
        clause = escaped_within(s.state.clause, CLAUSE_LIMIT)
        why = escaped_within(s.state.detail, 200)
        answered = "answered from its last index" if s.state.chunks else "never indexed"
        when += f"; unresolved by {clause} ({why}), {answered}"
    if s.state.last_error:
        error = escaped_within(s.state.last_error, 200)
        return f"✖ **{name}**: {when}; last error: {error}"
    if _unresolved(s):
        return f"⚠ **{name}**: {when}" + ("; stale" if s.stale else "")
    if s.stale:
        return f"⚠ **{name}**: {when}; stale"
    return f"✓ **{name}**: {when}"
