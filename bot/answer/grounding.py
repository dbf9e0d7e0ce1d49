"""Checking a drafted answer against the passages it was drafted from (pure).

A draft is shown only if it says more than that the passages do not answer (a draft that says
only that is a decline, ``bot.answer.nonanswer``), cites at least one passage, every passage
number it uses (in its citations or as a marker in its text: ``[n]`` or ``[n-m]``, and the
other forms a reader takes for the same, ``bot.answer.markers``) names a passage supplied,
every identifier it writes as code occurs in a passage it cites, and every link it gives comes
from a passage it cites. The identifier rule catches the commonest invention: a plausible option,
flag or function that the documentation never mentions; the link rule keeps an answer from
sending a reader anywhere the documentation does not. Anything else becomes a decline that
says why.

A decline is shown too, and the model's reason for one is as untrusted as its answers (a
passage can talk it into writing anything there). So a reason keeps only the addresses some
supplied passage gives, and a refused draft's reason never repeats the address it was refused
for.

Answers are read as two renderers read them: CommonMark (the terminal, the docs) and Discord,
which draws only closed backtick fences as code blocks. Whatever either would show as code is
checked, so no formatting choice lets a name past the checks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

from markdown_it import MarkdownIt

from bot.answer.composer import Answer, Passage
from bot.answer.markers import passage_numbers
from bot.answer.nonanswer import is_non_answer, without_markers
from bot.answer.outcome import NOTHING_MATCHED_REASON, Decline, Outcome, citations_for

if TYPE_CHECKING:
    from bot.index.retriever import Result

_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
_SPACE = re.compile(r"\s+")
# In a code block, the names worth checking: a flag, and a compound name (``NewClient``,
# ``max_recv_size``, ``HTTPServer``). Plain words (``client``, ``err``) name nothing in
# particular; what the reader fills in is written as ``<placeholder>`` and left alone.
_BLOCK_NAME = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*|[A-Za-z_][A-Za-z0-9_]*")
_COMPOUND = re.compile(r"[a-z0-9][A-Z]|[A-Z][A-Z][a-z]|[A-Za-z0-9]_[A-Za-z0-9]")
_PLACEHOLDER = re.compile(r"<[^<>\n]*>")
# A link's address: behind link text, in angle brackets, or written out (Discord links it).
_LINK = re.compile(
    r"\]\(\s*<?([^\s()<>]+)|<([a-z][a-z0-9+.-]*:[^\s<>]+)>|(https?://[^\s<>\[\]()]+)", re.I
)
_LINK_TRAIL = ".,;:!?'\")]*_"
LINK_REMOVED = "(a link no passage gives was removed)"


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").disable("inline")  # only the blocks are needed


@dataclass(frozen=True, slots=True)
class _Code:
    """What an answer writes as code, and its prose with that code taken out."""

    spans: list[str]
    blocks: list[str]
    prose: str


def _squash(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _closed(lines: Sequence[str], end: int, markup: str) -> bool:
    """Whether the fence opened with ``markup`` is closed on line ``end - 1``."""
    if end - 1 < 0 or end - 1 >= len(lines):
        return False
    last = lines[end - 1].lstrip(" \t>").rstrip()  # inside a quote too
    return len(last) >= len(markup) and set(last) == {markup[0]}


def _read_code(markdown: str) -> _Code:
    lines = markdown.split("\n")
    blocks: list[str] = []
    drawn = [False] * len(lines)  # lines both renderers draw as a code block
    for token in _parser().parse(markdown):
        if token.type not in ("fence", "code_block") or token.map is None:
            continue
        blocks.append(token.content)
        start, end = token.map
        if token.type == "fence" and token.markup[0] == "`" and _closed(lines, end, token.markup):
            drawn[start:end] = [True] * (end - start)
    rest = "\n".join(line for line, code in zip(lines, drawn, strict=True) if not code)
    spans = [_squash(m.group(2)) for m in _CODE_SPAN.finditer(rest)]
    prose = _CODE_SPAN.sub(" ", rest)
    return _Code([s for s in spans if s], blocks, prose)


def inline_code(markdown: str) -> list[str]:
    """Every inline code span's text, in order, blanks and drawn code blocks left out."""
    return _read_code(markdown).spans


def block_names(block: str) -> list[str]:
    """The flags and compound names a code block uses, placeholders left out."""
    names = _BLOCK_NAME.findall(_PLACEHOLDER.sub(" ", block))
    return [n for n in names if n.startswith("-") or _COMPOUND.search(n.strip("_"))]


def links(markdown: str) -> list[str]:
    """Every address the answer's prose links to, in order (code is not a link)."""
    prose = _read_code(markdown).prose
    found = (next(g for g in m.groups() if g) for m in _LINK.finditer(prose))
    return list(dict.fromkeys(url.rstrip(_LINK_TRAIL) for url in found))


def markers(markdown: str, supplied: int | None = None) -> list[int]:
    """The passage numbers the answer's prose refers to, in any marker's form, code left out.

    ``supplied``: how many passages the answer was drafted from; a superscript or a number in
    parentheses counts only when it names one of them (see ``bot.answer.markers``).
    """
    return passage_numbers(_read_code(markdown).prose, supplied)


def cited_numbers(answer: Answer, supplied: int | None = None) -> tuple[int, ...]:
    """The passages an answer relies on: its citations, then any others its text refers to."""
    return tuple(dict.fromkeys((*answer.citations, *markers(answer.text, supplied))))


def _haystack(passage: Passage) -> str:
    return _squash("\n".join((passage.text, passage.path, passage.symbol, *passage.heading_path)))


def _occurs(span: str, haystacks: Sequence[str]) -> bool:
    # `Name()` is how prose names a function whose passage shows `Name(ctx, opts)`.
    forms = {span, span[:-2]} if span.endswith("()") and len(span) > 2 else {span}
    return any(form in hay for form in forms for hay in haystacks)


def unsupported_identifiers(text: str, cited: Sequence[Passage]) -> list[str]:
    """Identifiers ``text`` writes as code that no passage in ``cited`` contains."""
    haystacks = [_haystack(p) for p in cited]
    code = _read_code(text)
    written = [*code.spans, *(name for block in code.blocks for name in block_names(block))]
    missing = [name for name in written if not _occurs(name, haystacks)]
    return list(dict.fromkeys(missing))


def _gives(url: str, passages: Sequence[Passage]) -> bool:
    """Whether a passage contains ``url`` or is cited at it (with or without its anchor)."""
    return any(url in (p.url, p.url.split("#", 1)[0]) or url in p.text for p in passages)


def unsupported_links(text: str, cited: Sequence[Passage]) -> list[str]:
    """Addresses ``text`` links to that no passage in ``cited`` gives or is cited at."""
    return [url for url in links(text) if not _gives(url, cited)]


def grounded_reason(reason: str, supplied: Sequence[Passage]) -> str:
    """A decline's reason with every address no passage in ``supplied`` gives taken out.

    A reason is shown as it is written, not drawn as Markdown, so an address anywhere in it
    (in backticks too) is one a reader could follow; each is checked.
    """

    def keep_or_remove(m: re.Match[str]) -> str:
        url = next(g for g in m.groups() if g).rstrip(_LINK_TRAIL)
        return m.group(0) if _gives(url, supplied) else m.group(0).replace(url, LINK_REMOVED)

    return _LINK.sub(keep_or_remove, reason)


def _numbers(numbers: Sequence[int]) -> str:
    """``1, 4–9, 12``: a run of three or more numbers written as its ends."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(
        f"{run[0]}–{run[-1]}" if len(run) > 2 else ", ".join(map(str, run)) for run in runs
    )


def judge(answer: Answer, passages: Sequence[Passage]) -> Decline | None:
    """Return why ``answer`` may not be shown, or ``None`` when it is grounded."""
    if answer.declined:
        reason = grounded_reason(answer.reason, passages)
        return Decline("composer_declined", reason or "The passages do not answer the question.")
    if not answer.text.strip():
        return Decline("ungrounded", "The model neither answered nor declined.")
    if is_non_answer(answer.text):  # a decline written as an answer: its words are the reason
        return Decline("composer_declined", grounded_reason(without_markers(answer.text), passages))
    numbers = cited_numbers(answer, len(passages))
    if not numbers:  # a passage the text points to, [2], is cited as much as a listed one
        return Decline("ungrounded", "The drafted answer cited no passage.")
    outside = [n for n in numbers if not 1 <= n <= len(passages)]
    if outside:
        supplied = f"1–{len(passages)}" if passages else "none"
        return Decline(
            "ungrounded",
            f"The drafted answer cited passage {_numbers(outside)}, but only passages "
            f"{supplied} were supplied.",
        )
    cited = [passages[n - 1] for n in numbers]
    missing = unsupported_identifiers(answer.text, cited)
    if missing:
        names = ", ".join(f"`{m}`" for m in missing[:5])
        return Decline(
            "ungrounded",
            f"The drafted answer names {names}, which no cited passage contains.",
        )
    elsewhere = unsupported_links(answer.text, cited)
    if elsewhere:
        # Not named: the reason is shown, and the address is the one thing not to show.
        count = f"{len(elsewhere)} address{'es' if len(elsewhere) > 1 else ''}"
        return Decline(
            "ungrounded", f"The drafted answer links to {count} that no cited passage gives."
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
    cited = citations_for(cited_numbers(draft, len(passages)), passages)
    return replace(asked, kind="answered", answer=draft.text, citations=cited)
