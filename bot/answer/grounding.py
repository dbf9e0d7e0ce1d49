"""Checking a drafted answer against the passages it was drafted from (pure).

A draft is shown only if it cites at least one passage, every citation names a passage that
was supplied, and every identifier it puts in backticks occurs in a passage it cites. The
last rule catches the commonest invention: a plausible option, flag or function that the
documentation never mentions. Anything else becomes a decline that says why.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from bot.answer.composer import Answer, Passage
from bot.answer.outcome import NOTHING_MATCHED_REASON, Decline, Outcome, citations_for

if TYPE_CHECKING:
    from bot.index.retriever import Result

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,}).*?(?:^ {0,3}\1[`~]*[ \t]*$|\Z)", re.M | re.S)
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
_SPACE = re.compile(r"\s+")


def _squash(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def inline_code(markdown: str) -> list[str]:
    """Every inline code span's text, in order, blanks and fenced blocks left out."""
    prose = _FENCE.sub("", markdown)
    spans = (_squash(m.group(2)) for m in _CODE_SPAN.finditer(prose))
    return [s for s in spans if s]


def _haystack(passage: Passage) -> str:
    return _squash("\n".join((passage.text, passage.path, passage.symbol, *passage.heading_path)))


def _occurs(span: str, haystacks: Sequence[str]) -> bool:
    # `Name()` is how prose names a function whose passage shows `Name(ctx, opts)`.
    forms = {span, span[:-2]} if span.endswith("()") and len(span) > 2 else {span}
    return any(form in hay for form in forms for hay in haystacks)


def unsupported_identifiers(text: str, cited: Sequence[Passage]) -> list[str]:
    """Backticked identifiers in ``text`` that no passage in ``cited`` contains."""
    haystacks = [_haystack(p) for p in cited]
    missing = [span for span in inline_code(text) if not _occurs(span, haystacks)]
    return list(dict.fromkeys(missing))


def _numbers(numbers: Sequence[int]) -> str:
    return ", ".join(str(n) for n in numbers)


def judge(answer: Answer, passages: Sequence[Passage]) -> Decline | None:
    """Return why ``answer`` may not be shown, or ``None`` when it is grounded."""
    if answer.malformed is not None:
        return Decline("ungrounded", f"The model's reply could not be read: {answer.malformed}.")
    if answer.declined:
        reason = answer.reason or "The passages do not answer the question."
        return Decline("composer_declined", reason)
    if not answer.text.strip():
        return Decline("ungrounded", "The model neither answered nor declined.")
    if not answer.citations:
        return Decline("ungrounded", "The drafted answer cited no passage.")
    outside = [n for n in answer.citations if not 1 <= n <= len(passages)]
    if outside:
        supplied = f"1–{len(passages)}" if passages else "none"
        return Decline(
            "ungrounded",
            f"The drafted answer cited passage {_numbers(outside)}, but only passages "
            f"{supplied} were supplied.",
        )
    cited = [passages[n - 1] for n in answer.citations]
    missing = unsupported_identifiers(answer.text, cited)
    if missing:
        names = ", ".join(f"`{m}`" for m in missing[:5])
        return Decline(
            "ungrounded",
            f"The drafted answer names {names}, which no cited passage contains.",
        )
    return None


def settle(
    question: str,
    query: str,
    passages: Sequence[Result],
    stale: Sequence[str],
    provider: str,
    model: str | None,
    draft: Answer | None,
) -> Outcome:
    """Decide the outcome of a question from its passages and the draft (if a model was asked).

    No passages is a decline before any model is asked; passages without a draft mean no
    model is configured; a draft is shown only when ``judge`` finds nothing wrong with it.
    """
    base = Outcome(
        question, query, "passages", None, (), None, tuple(stale), provider, model, tuple(passages)
    )
    if not passages:
        nothing = Decline("nothing_matched", NOTHING_MATCHED_REASON)
        return replace(base, kind="declined", decline=nothing)
    if draft is None:
        return base
    asked = replace(base, usage=draft.usage, compose_ms=draft.latency_ms)
    refused = judge(draft, passages)
    if refused is not None:
        return replace(asked, kind="declined", decline=refused)
    cited = citations_for(draft.citations, passages)
    return replace(asked, kind="answered", answer=draft.text, citations=cited)
