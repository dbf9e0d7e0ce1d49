"""Turning engine results into the CLI's JSON objects and plain text (pure functions)."""

from __future__ import annotations

import json
import logging
import re
import textwrap
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from bot.answer.backlog import GapGroup
from bot.answer.outcome import Citation, Outcome
from bot.engine import Retrieval, SourceStatus
from bot.forge.origin import redact_urls
from bot.index.catalog import ListingFailure, SourceState
from bot.index.retriever import Result
from bot.refresh import RefreshReport
from bot.unseen import UNSEEN_CLASS, escaped, visible

NO_MODEL_NOTICE = (
    'No model is configured (answer.provider = "none"), so these are the passages an '
    "answer would be composed from, in the order the model would read them, with their "
    "citations. Set ANTHROPIC_API_KEY or answer.provider to get composed answers."
)


def terminal_safe(text: str) -> str:
    r"""``text`` that cannot drive a terminal, for the human-readable output.

    Indexed text, headings, paths and answers come from repositories and models, not from
    the person at the terminal: an escape sequence in them could retitle the window, hide
    text or rewrite what was printed, and a direction override could reorder what is read.
    Every character that would act unseen (``bot.unseen``: control characters but newline and
    tab, direction controls, invisible formatting) is shown as an escape such as ``\x1b`` or
    ``\u202e`` instead, as Discord shows it, and a CRLF line end is just a line end.
    """
    return visible(text)


_LINE_BREAK = re.compile(r"[\n\r]")


def one_line(text: str) -> str:
    r"""``text`` on one line: every line feed and carriage return is shown as ``\x0a``, ``\x0d``.

    A log line is read as starting at a line break, so a line break in a name or path from a
    repository would make what follows it read as a log line of its own, one nobody logged.
    """
    return _LINE_BREAK.sub(lambda m: escaped(m[0]), text)


class TerminalSafeLog(logging.Formatter):
    """Log lines that cannot drive the terminal showing standard error, nor be forged.

    Log messages carry source names, paths and errors from repositories and the forge; every
    line is escaped here, once, as the commands' own output is, rather than at each call.
    """

    def formatMessage(self, record: logging.LogRecord) -> str:
        """The record's message, on one line, in the log's format."""
        # Only the message is made one line: the traceback that ``format`` appends after it
        # is the program's own text, and keeps its lines so that it stays readable.
        record.message = one_line(record.message)
        return super().formatMessage(record)

    def format(self, record: logging.LogRecord) -> str:
        """The whole entry, traceback included, with no character that drives a terminal."""
        return terminal_safe(super().format(record))


_RAW_IN_JSON = re.compile(rf"[{UNSEEN_CLASS}]")


def json_text(data: Any) -> str:
    r"""``data`` as indented JSON in which no character can drive a terminal.

    ``json.dumps`` escapes C0 controls but leaves DEL, the C1 controls and the direction
    controls as they are, and some terminals obey C1 controls. They can only stand inside
    JSON strings, where a ``\u`` escape reads back as the same character; the other characters
    that would act unseen (``bot.unseen``) are escaped there too.
    """
    dumped = json.dumps(data, ensure_ascii=False, indent=2)
    # json.dumps with its ASCII escaping writes one as JSON reads it back: past U+FFFF, as a
    # surrogate pair.
    return _RAW_IN_JSON.sub(lambda m: json.dumps(m[0])[1:-1], dumped)


def passage_json(rank: int, result: Result) -> dict[str, Any]:
    """One passage as ``ask --json`` and ``ask --retrieval-only --json`` print it."""
    return {
        "rank": rank,
        "score": round(result.score, 4),
        "repo": result.repo,
        "path": result.path,
        "kind": result.kind,
        "heading": result.heading,
        "heading_path": list(result.heading_path),
        "anchor": result.anchor,
        "symbol": result.symbol,
        "start_line": result.start_line,
        "end_line": result.end_line,
        "url": result.url,
        "commit": result.commit,
        "text": result.text,
    }


def retrieval_json(retrieval: Retrieval) -> dict[str, Any]:
    """The ``ask --retrieval-only --json`` object."""
    return {
        "question": retrieval.question,
        "query": retrieval.query,
        "results": [passage_json(i, r) for i, r in enumerate(retrieval.results, 1)],
    }


def passage_label(result: Result) -> str:
    """``repo path › heading`` or ``repo path symbol`` for one passage."""
    where = result.symbol or " › ".join(result.heading_path) or result.heading
    return f"{result.repo} {result.path} — {where}"


def retrieval_text(retrieval: Retrieval, *, excerpt_lines: int = 3) -> str:
    """Ranked passages for a terminal: score, where, citation and the first lines."""
    if not retrieval.results:
        return "Nothing in the index matched this question."
    out = [f"query: {retrieval.query}", ""]
    for rank, result in enumerate(retrieval.results, 1):
        out.append(f"{rank:>2}. [{result.score:.2f}] {passage_label(result)}")
        out.append(f"    {result.url}")
        lines = [line for line in result.text.splitlines() if line.strip()][:excerpt_lines]
        for line in lines:
            out.append("    " + textwrap.shorten(line.strip(), 110, placeholder=" …"))
        out.append("")
    return "\n".join(out).rstrip()


def citation_json(citation: Citation) -> dict[str, Any]:
    """One cited passage as ``ask --json`` prints it."""
    return {
        "n": citation.n,
        "url": citation.url,
        "repo": citation.repo,
        "path": citation.path,
        "heading": citation.heading,
        "symbol": citation.symbol,
    }


def outcome_json(outcome: Outcome) -> dict[str, Any]:
    """The ``ask --json`` object.

    An answer or a decline has exactly the documented keys. With no model configured the
    outcome is ``passages``: no answer, no citations, no decline, ``model`` null, and a
    ``notice`` saying why only passages are shown. An outcome the index could not record has
    an ``unrecorded`` key saying why.
    """
    data: dict[str, Any] = {
        "question": outcome.question,
        "outcome": outcome.kind,
        "answer": outcome.answer,
        "citations": [citation_json(c) for c in outcome.citations],
        "decline": (
            {"kind": outcome.decline.kind, "reason": outcome.decline.reason}
            if outcome.decline
            else None
        ),
        "stale": list(outcome.stale),
        "provider": outcome.provider,
        "model": outcome.model,
        "passages": [passage_json(i, r) for i, r in enumerate(outcome.passages, 1)],
    }
    if outcome.kind == "passages":
        data["notice"] = NO_MODEL_NOTICE
    if outcome.unrecorded:
        data["unrecorded"] = outcome.unrecorded
    return data


_DECLINE_LEADS = {
    "nothing_matched": "No answer: nothing in the index matches this question.",
    "composer_declined": "No answer: the indexed documentation does not answer this question.",
    "ungrounded": (
        "No answer: an answer was drafted, but it could not be checked against the passages, "
        "so it is not shown."
    ),
}


def stale_caveat(stale: Sequence[str]) -> str:
    """The caveat for answering from sources past their refresh interval."""
    names = ", ".join(stale)
    return (
        f"Caveat: {names} {'has' if len(stale) == 1 else 'have'} not been refreshed within "
        "the refresh interval, so this may be out of date."
    )


def outcome_text(outcome: Outcome) -> str:
    """An outcome for a terminal: the answer and its sources, or why there is none."""
    out: list[str] = []
    if outcome.kind == "answered":
        out += [outcome.answer or "", "", "Sources:"]
        for c in outcome.citations:
            where = c.symbol or c.heading
            out.append(f"  [{c.n}] {c.repo} {c.path}" + (f" — {where}" if where else ""))
            out.append(f"      {c.url}")
    elif outcome.kind == "declined" and outcome.decline:
        out.append(_DECLINE_LEADS[outcome.decline.kind])
        if outcome.decline.kind != "nothing_matched":
            out.append(f"Reason: {outcome.decline.reason}")
        if outcome.passages:
            searched = sorted({f"{p.repo} {p.path}" for p in outcome.passages})
            out.append("Searched: " + "; ".join(searched[:5]) + (" …" if len(searched) > 5 else ""))
        if outcome.unrecorded:
            out.append(f"Not recorded as a documentation gap: {outcome.unrecorded}")
        else:
            out.append("Recorded as a documentation gap ('python -m bot.cli gaps' lists them).")
    else:
        retrieval = Retrieval(outcome.question, outcome.query, outcome.passages)
        out += [NO_MODEL_NOTICE, "", retrieval_text(retrieval)]
    if outcome.stale and outcome.kind != "declined":
        out += ["", stale_caveat(outcome.stale)]
    return "\n".join(out)


def gaps_json(groups: Sequence[GapGroup], since: str | None) -> dict[str, Any]:
    """The ``gaps --json`` object."""
    return {
        "since": since,
        "declines": sum(g.declines for g in groups),
        "groups": [
            {
                "kind": g.kind,
                "declines": g.declines,
                "gaps": [
                    {
                        "question": gap.question,
                        "reason": gap.reason,
                        "times": gap.times,
                        "last_asked": gap.last_asked,
                        "first_asked": gap.first_asked,
                        "question_ids": list(gap.question_ids),
                    }
                    for gap in g.gaps
                ],
            }
            for g in groups
        ],
    }


def gaps_text(groups: Sequence[GapGroup], since: str | None) -> str:
    """The gap backlog for a terminal, newest first within each kind."""
    total = sum(g.declines for g in groups)
    when = f" since {since}" if since else ""
    if not total:
        return f"No declined questions{when}: no documentation gaps recorded."
    out = [f"{total} declined question{'s' if total != 1 else ''}{when}, newest first.", ""]
    for g in groups:
        out.append(f"{g.kind} ({g.declines})")
        for gap in g.gaps:
            times = f" ×{gap.times}" if gap.times > 1 else ""
            out.append(f"  {gap.last_asked[:16].replace('T', ' ')}{times}  {gap.question}")
            out.append(f"      {textwrap.shorten(gap.reason, 200, placeholder=' …')}")
        out.append("")
    return "\n".join(out).rstrip()


def sources_json(states: Sequence[SourceState]) -> list[dict[str, Any]]:
    """The ``index sources --json`` array."""
    return [
        {
            "source": s.name,
            "verdict": s.verdict,
            "clause": s.clause,
            "detail": s.detail,
            # As index status gives them: why the last refresh failed; for a failed release
            # lookup, what failed, where the code stays, what to do.
            "last_error": s.last_error,
            "release_error": s.release_error,
        }
        for s in states
    ]


def status_json(
    statuses: Sequence[SourceStatus],
    unembedded: int | None,
    failure: ListingFailure | None = None,
) -> dict[str, Any]:
    """The ``index status --json`` object; ``unembedded`` is ``None`` in bm25 mode.

    ``failure`` is the last build's failed GitLab listing: without it every index time looks
    healthy while no project has been discovered for days.
    """
    rows = [
        {
            "source": s.state.name,
            "branch_commit": s.state.branch_commit,
            "release_commit": s.state.release_commit,
            "release_tag": s.state.release_tag,
            "indexed_at": s.state.indexed_at,
            "refreshed_at": s.state.refreshed_at,
            "refresh_interval": s.interval,
            "stale": s.stale,
            "default_branch": s.state.default_branch,
            "last_error": s.state.last_error,
            "release_error": s.state.release_error,
            "documents": s.state.documents,
            "chunks": s.state.chunks,
            # An unresolved source answers from its last index, however old; say so and why.
            "verdict": s.state.verdict,
            "clause": s.state.clause,
            "detail": s.state.detail,
        }
        for s in statuses
    ]
    return {
        "sources": rows,
        "totals": {
            "sources": len(rows),
            "documents": sum(r["documents"] for r in rows),
            "chunks": sum(r["chunks"] for r in rows),
            "stale": sum(1 for r in rows if r["stale"]),
            "failing": sum(1 for r in rows if r["last_error"]),
            "release_errors": sum(1 for r in rows if r["release_error"]),
            "unresolved": sum(1 for r in rows if r["verdict"] == "unresolved"),
            "chunks_without_vectors": unembedded,
        },
        "listing_failure": {"group": failure.group, "at": failure.failed_at, "said": failure.error}
        if failure is not None
        else None,
    }


def unembedded_text(unembedded: int | None, chunks: int) -> str:
    """What ``index status`` says of passages hybrid mode has not embedded; "" for none."""
    if not unembedded:
        return ""
    verb = "has" if unembedded == 1 else "have"
    return (
        f"{unembedded} of {chunks} passages {verb} no vector yet, so questions find them by "
        "their words and names alone. Run 'python -m bot.cli index build' to embed them."
    )


def refresh_json(report: RefreshReport) -> dict[str, Any]:
    """The ``index build --json`` object."""
    return {
        "sources": [
            {
                "source": o.name,
                "status": o.status,
                "documents_written": o.written,
                "documents_kept": o.kept,
                "chunks_written": o.chunks,
                "files_skipped": o.skipped,
                "seconds": round(o.seconds, 3),
                "error": o.error,
            }
            for o in report.outcomes
        ],
        "removed": list(report.removed),
        # What the table lists under the outcomes: every source left out, and why.
        "not_indexed": [
            {"source": c.name, "verdict": c.verdict.value, "clause": c.clause, "detail": c.detail}
            for c in report.candidates
            if not c.admitted
        ],
        "clones_deleted": list(report.clones_deleted),
        "respelled": [{"source": old, "now": new} for old, new in report.respelled],
        "errors": list(report.errors),
        "seconds": round(report.seconds, 3),
    }


def when_text(stamp: str | None, now: datetime | None = None) -> str:
    """``5h ago`` for a stored timestamp, as of ``now`` (the present if not given), or ``never``."""
    if not stamp:
        return "never"
    seconds = ((now or datetime.now(UTC)) - datetime.fromisoformat(stamp)).total_seconds()
    return age_text(max(0.0, seconds)) + " ago"


def source_problems(state: SourceState, *, verdict: bool) -> list[tuple[str, str]]:
    """What is wrong with a source, each problem as its kind and what it says.

    An unresolved verdict (unless ``verdict`` is false: shown elsewhere), the last refresh
    error and a failed release lookup; the release lookup's own text says where the code stays.
    """
    found = []
    if verdict and state.verdict == "unresolved":
        found.append(
            (f"unresolved ({state.clause})", f"{state.detail}; {_unresolved_consequence(state)}")
        )
    if state.last_error:
        found.append(("last error", state.last_error))
    if state.release_error:
        found.append(("release lookup", state.release_error))
    return found


def listing_failure_text(
    failure: ListingFailure, api_url: str, states: Sequence[SourceState], now: datetime
) -> str:
    """Why GitLab's projects are missing or old in ``index sources``, and what puts it right.

    ``now`` is the present, which the caller reads: how long ago the listing failed is told
    from it.

    A build run again unchanged fails the same way, so the advice is what the failed listing
    said and where to look, and only then to build again.
    """
    known = any(s.origin == "gitlab" for s in states)
    held = (
        "its projects are shown as the last listing that worked decided them"
        if known
        else "none of its projects is known yet"
    )
    said = redact_urls(failure.error).rstrip(".")
    return (
        f"GitLab's listing of {failure.group} failed in the last build "
        f"({when_text(failure.failed_at, now)}), so {held}: {said}. "
        f"Running the build again fails the same way until that is put right: check "
        f"gitlab.url.api (now {redact_urls(api_url)}), GITLAB_TOKEN, and that GitLab can be "
        "reached from "
        "here, then run 'python -m bot.cli index build' again."
    )


def _unresolved_consequence(state: SourceState) -> str:
    """What an unresolved verdict means for answers, and what to do when it costs them."""
    if state.chunks:
        return "answers come from its last index"
    return (
        "it has never been indexed, so nothing is answered from it: once that is put right, "
        "'python -m bot.cli index build' indexes it"
    )


def short_commit(sha: str | None) -> str:
    """The first 12 characters of a commit, or a dash."""
    return sha[:12] if sha else "—"


def age_text(seconds: float | None) -> str:
    """``3m``, ``5h``, ``2d`` or ``never``."""
    if seconds is None:
        return "never"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"
