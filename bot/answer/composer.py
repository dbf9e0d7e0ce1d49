"""The Composer seam: passages and a question in, a drafted answer (or a decline) out.

A composer only drafts. Whether the draft may be shown is decided afterwards by
``bot.answer.grounding``, the same way for every provider.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


class Passage(Protocol):
    """What a composer needs of a retrieved passage (``bot.index.retriever.Result`` fits)."""

    @property
    def repo(self) -> str:
        """The source the passage comes from."""
        ...

    @property
    def path(self) -> str:
        """The file inside the source."""
        ...

    @property
    def heading_path(self) -> tuple[str, ...]:
        """The headings above the passage, outermost first, its own last."""
        ...

    @property
    def symbol(self) -> str:
        """The code symbol the passage documents, or empty."""
        ...

    @property
    def text(self) -> str:
        """The passage itself."""
        ...

    @property
    def url(self) -> str:
        """Where the passage is cited: its docs page and anchor, or its lines at a commit."""
        ...


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens a provider reported for one answer (``None`` when it did not say)."""

    input_tokens: int | None = None
    output_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class Answer:
    """A composer's draft: prose citing passage numbers, or a decline with its reason."""

    text: str
    citations: tuple[int, ...]
    declined: bool
    reason: str
    usage: Usage = Usage()
    latency_ms: float = 0.0


# Stop reasons that mean the model never finished its reply. What it left is not its reading of
# the passages, so it is the provider's failure (an error), never a decline: a decline would
# file the question as a documentation gap that the documentation may not have.
_UNFINISHED = {
    "max_tokens": (
        "The model's reply ran past the {limit} output tokens it may use and was cut off, so it "
        "cannot be checked or shown",
        "Ask a narrower question.",
    ),
    "refusal": (
        "The model's safety checks stopped it before it replied",
        "Rephrase the question and ask again.",
    ),
    "pause_turn": ("The API paused the reply before it was finished", "Ask again."),
    "model_context_window_exceeded": (
        "The passages and the question did not fit in the model's context window",
        "Ask a shorter question, or set answer.model to a model with a larger context window.",
    ),
}


def unfinished(stop_reason: object, limit: int | None = None) -> str | None:
    """What to tell the asker when ``stop_reason`` says the reply was cut short, else ``None``.

    ``limit`` is the output token limit the reply was given, when phpbotscout set one.
    """
    if not isinstance(stop_reason, str) or stop_reason not in _UNFINISHED:
        return None
    what, todo = _UNFINISHED[stop_reason]
    what = what.format(limit=f"{limit:,}" if limit else "number of")
    return f"{what} (stop reason {stop_reason}). {todo}"


def unreadable(why: str) -> str:
    """What to tell the asker when the provider's reply is not in the reply's structure.

    Such a reply says nothing about the passages, so it is the provider's failure (an error),
    never a decline: a decline would file the question as a documentation gap.
    """
    return f"The model's reply could not be read: {why}. Ask again."


class Composer(Protocol):
    """Drafts an answer to ``question`` from numbered ``passages`` (numbered from 1)."""

    @property
    def provider(self) -> str:
        """The provider's name as configured (``anthropic``, ``claude-local``)."""
        ...

    @property
    def model(self) -> str:
        """The model the provider asks."""
        ...

    async def compose(self, question: str, passages: Sequence[Passage]) -> Answer:
        """Draft an answer; raise ``ProviderError`` when the provider fails."""
        ...

    async def aclose(self) -> None:
        """Release connections or processes the composer holds."""
        ...
