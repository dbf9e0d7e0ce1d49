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
    """A composer's draft: prose citing passage numbers, or a decline with its reason.

    ``malformed`` is set when the provider replied but its structured output could not be
    read (missing, wrong types); such a draft is never shown and becomes a decline.
    """

    text: str
    citations: tuple[int, ...]
    declined: bool
    reason: str
    usage: Usage = Usage()
    latency_ms: float = 0.0
    malformed: str | None = None


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
