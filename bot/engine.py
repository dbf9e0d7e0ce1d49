"""The engine: what the CLI and the Discord bot both call.

One object holds the configuration, the open index and the retriever; every user-facing
operation (refresh, explain sources, report status, retrieve passages) is a method here, so
the terminal and Discord cannot drift apart.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.config import Config
from bot.errors import EmptyIndexError
from bot.index import catalog
from bot.index.catalog import SourceState
from bot.index.query import build_query
from bot.index.retriever import PASSAGES, FtsRetriever, Result, Retriever
from bot.index.store import Store
from bot.refresh import Progress, RefreshReport, refresh

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Retrieval:
    """A question, the query it became, and the passages selected for it."""

    question: str
    query: str
    results: tuple[Result, ...]


@dataclass(frozen=True, slots=True)
class SourceStatus:
    """One source's freshness as ``index status`` and ``/status`` show it."""

    state: SourceState
    interval: float
    stale: bool


class Engine:
    """The configured index and everything that reads or refreshes it."""

    def __init__(self, config: Config, store: Store, retriever: Retriever | None = None):
        self.config = config
        self.store = store
        self.retriever: Retriever = retriever or FtsRetriever(store)

    @classmethod
    async def open(cls, config: Config) -> Engine:
        """Open (and migrate) the configured index."""
        return cls(config, await Store.open(config.index_path))

    async def close(self) -> None:
        """Close the index."""
        await self.store.close()

    async def __aenter__(self) -> Engine:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def refresh(
        self,
        only: Sequence[str] = (),
        *,
        force: bool = False,
        progress: Progress | None = None,
    ) -> RefreshReport:
        """Run THE refresh path (``index build`` and the scheduler both come here)."""
        return await refresh(self.config, self.store, only=only, force=force, progress=progress)

    async def sources(self) -> list[SourceState]:
        """Every candidate source with its verdict and the clause that decided it."""
        return await catalog.sources(self.store)

    async def status(self, at: datetime | None = None) -> list[SourceStatus]:
        """Every admitted source's freshness against its refresh interval."""
        moment = at or datetime.now(UTC)
        out = []
        for state in await catalog.sources(self.store):
            if state.verdict != "admitted":
                continue
            interval = self.config.interval_for(state.name)
            out.append(SourceStatus(state, interval, state.is_stale(interval, moment)))
        return out

    async def ensure_ready(self) -> None:
        """Make sure there is something to answer from.

        The embedded default builds (or catches up) its own index first; any other
        configuration with an empty index is refused with how to build it.
        """
        if self.config.embedded:
            await self.refresh()
        if await catalog.chunk_count(self.store) == 0:
            raise EmptyIndexError(
                f"The index at {self.config.index_path} holds no passages yet, so there is "
                "nothing to answer from. Build it with 'python -m bot.cli index build'."
            )

    async def retrieve(self, question: str, limit: int = PASSAGES) -> Retrieval:
        """Select the passages for ``question``, exactly as the composer receives them."""
        results = await self.retriever.retrieve(question, limit)
        return Retrieval(question, build_query(question), tuple(results))

    async def stale_sources(self, results: Sequence[Result]) -> list[str]:
        """Names of the sources behind ``results`` that are past their refresh interval."""
        names = {r.repo for r in results}
        return sorted(
            s.state.name for s in await self.status() if s.stale and s.state.name in names
        )
