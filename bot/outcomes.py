"""What a refresh reports as it goes: each source's outcome, and the progress protocol.

Kept apart from ``bot.refresh`` so that the forge side of the refresh can produce outcomes
without importing the module that drives it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from bot.index.writer import SourcePlan

log = logging.getLogger("bot.refresh")


@dataclass(frozen=True, slots=True)
class SourceOutcome:
    """What one source's refresh did."""

    name: str
    status: str  # "indexed", "unchanged" or "failed"
    written: int = 0  # documents read and (re)written
    kept: int = 0  # documents unchanged: only their commit moved, or nothing did
    chunks: int = 0  # chunks written
    skipped: int = 0  # files considered that yielded nothing
    seconds: float = 0.0
    error: str | None = None

    @classmethod
    def indexed(cls, plan: SourcePlan, seconds: float = 0.0) -> SourceOutcome:
        """The outcome of writing ``plan``."""
        return cls(
            plan.name,
            "indexed",
            written=len(plan.fresh),
            kept=len(plan.kept) + len(plan.held),
            chunks=sum(len(d.chunks) for d in plan.fresh),
            skipped=len(plan.skipped),
            seconds=seconds,
        )


class Progress(Protocol):
    """Receives progress events; the CLI draws a bar from them, the scheduler logs them."""

    def source_started(self, name: str) -> None:
        """A source's refresh begins."""

    def file_read(self, name: str, path: str) -> None:
        """A file of the source was considered."""

    def source_finished(self, outcome: SourceOutcome) -> None:
        """A source's refresh ended."""


class QuietProgress:
    """Progress that only logs each finished source."""

    def source_started(self, name: str) -> None:
        """Nothing to show."""

    def file_read(self, name: str, path: str) -> None:
        """Nothing to show."""

    def source_finished(self, outcome: SourceOutcome) -> None:
        """Log one line per source."""
        log.info("refreshed %s: %s", outcome.name, outcome.status)
