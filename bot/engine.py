"""The engine: what the CLI and the Discord bot both call.

One object holds the configuration, the open index, the retriever and the composer; every
user-facing operation (refresh, explain sources, report status, retrieve passages, answer a
question, record a vote, list the gap backlog) is a method here, so the terminal and Discord
cannot drift apart.
"""

from __future__ import annotations

import difflib
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import replace as _replace
from datetime import UTC, datetime

from bot.answer import backlog
from bot.answer.composer import Answer, Composer
from bot.answer.grounding import settle
from bot.answer.outcome import Outcome
from bot.answer.providers import build_composer
from bot.config import Config
from bot.errors import Busy, EmptyIndexError, ProviderError, StoreError, UsageError
from bot.forge.predicate import named_by, same_path
from bot.index import catalog, records
from bot.index.catalog import SourceState
from bot.index.embedder import Embedder, packaged_embedder
from bot.index.hybrid import HybridRetriever
from bot.index.records import Asked
from bot.index.retriever import PASSAGES, FtsRetriever, Result, Retriever
from bot.index.store import Store, now
from bot.refresh import Progress, RefreshReport, refresh

log = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 4000


def _ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def checked_question(question: str) -> str:
    """``question`` without surrounding space, once it is fit to be asked.

    Retrieving and answering both come through here, so ``ask --retrieval-only`` accepts
    exactly the questions ``ask`` and ``/ask`` do.

    Raises:
        UsageError: the question is empty, too long or not text.
    """
    text = question.strip()
    if not text:
        raise UsageError("The question is empty: ask something, in quotes.")
    if len(text) > MAX_QUESTION_CHARS:
        raise UsageError(
            f"The question is {len(text)} characters long; keep it to {MAX_QUESTION_CHARS} at most."
        )
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # Bytes of the command line that are not UTF-8 arrive as lone surrogates, which
        # neither the index, the API's JSON nor claude's input can take: every provider, and
        # the record of the question, would fail on them with a traceback.
        raise UsageError(
            "The question holds bytes that are not UTF-8 text: type it again in a terminal "
            "that uses UTF-8 (check LANG and LC_ALL)."
        ) from None
    return text


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

    def __init__(
        self,
        config: Config,
        store: Store,
        retriever: Retriever | None = None,
        composer: Composer | None = None,
        embedder: Embedder | None = None,
        *,
        needs_model: bool = True,
    ):
        self.config = config
        self.store = store
        # Hybrid mode needs a model to build and to answer; without the extra that installs
        # one this is the configuration error that says what to install. What only reads the
        # index's records (status, sources, the gap backlog) opens without one, so a missing
        # extra does not also hide what the index holds.
        self.embedder: Embedder | None = None
        if config.retrieval_mode == "hybrid" and needs_model:
            self.embedder = embedder or packaged_embedder()
        self.retriever: Retriever = retriever or (
            HybridRetriever(store, self.embedder) if self.embedder else FtsRetriever(store)
        )
        self._composer = composer
        self._composer_built = composer is not None

    @classmethod
    async def open(
        cls,
        config: Config,
        embedder: Embedder | None = None,
        composer: Composer | None = None,
        *,
        needs_model: bool = True,
    ) -> Engine:
        """Open (and migrate) the configured index.

        ``needs_model`` is false for an engine that will neither refresh nor retrieve (one
        that reads the index's records): in hybrid mode it then loads no embedding model.

        Raises:
            ConfigError: hybrid retrieval is configured, ``needs_model`` is true, and no
                embedding model is installed.
        """
        store = await Store.open(config.index_path)
        try:
            return cls(config, store, composer=composer, embedder=embedder, needs_model=needs_model)
        except BaseException:
            # The index's worker thread would otherwise keep the process alive after the error.
            await store.close()
            raise

    async def close(self) -> None:
        """Close the composer's connections and the index."""
        try:
            if self._composer is not None:
                await self._composer.aclose()
        finally:
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
        due_only: bool = False,
        progress: Progress | None = None,
    ) -> RefreshReport:
        """Run THE refresh path (``index build``, the scheduler and the webhook all come here).

        ``due_only`` refreshes just the sources past their refresh interval (the scheduler's
        way); ``only`` just the named ones.
        """
        return await refresh(
            self.config,
            self.store,
            only=only,
            force=force,
            due_only=due_only,
            progress=progress,
            embedder=self.embedder,
        )

    async def sources(self) -> list[SourceState]:
        """Every candidate source with its verdict and the clause that decided it."""
        return await catalog.sources(self.store)

    async def listing_failure(self) -> catalog.ListingFailure | None:
        """The GitLab group listing the last build could not make, and what it said, if any.

        Only a listing of the group configured now counts (its path in any letter case, as
        GitLab reads paths): with no group, or another one, nothing of the group that failed
        is missing any more.
        """
        failure = await catalog.listing_failure(self.store)
        group = self.config.gitlab_group
        if failure is None or group is None or not same_path(failure.group, group):
            return None
        return failure

    async def unmatched_intervals(self) -> list[str]:
        """Names in ``sources.refresh_intervals`` that no known source is called, in any case.

        Sources are discovered at run time (a GitLab project may appear tomorrow), so a name
        is checked against what the index knows, not refused when the file is read. Nothing
        is reported while no source is known at all.
        """
        known = [s.name for s in await catalog.sources(self.store)]
        keys = self.config.source_intervals
        return sorted(k for k in keys if not named_by(k, known)) if known else []

    async def unmatched_interval_warnings(self) -> list[str]:
        """One sentence for each name ``unmatched_intervals`` finds, with the closest known name."""
        unmatched = await self.unmatched_intervals()
        known = [s.name for s in await catalog.sources(self.store)] if unmatched else []
        warnings = []
        for name in unmatched:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            warnings.append(
                f"sources.refresh_intervals names '{name}', but no source is called "
                f"that{hint}, so its interval applies to nothing. Correct the name or remove it."
            )
        return warnings

    async def status(self, at: datetime | None = None) -> list[SourceStatus]:
        """The freshness of every source that is or could be answered from, against its interval.

        That is every admitted source, and every unresolved one: with an index, it still
        answers from it; without one, it is something to put right before it can.
        """
        moment = at or datetime.now(UTC)
        out = []
        for state in await catalog.sources(self.store):
            if state.verdict == "rejected":
                continue
            interval = self.config.interval_for(state.name)
            out.append(SourceStatus(state, interval, state.is_stale(interval, moment)))
        return out

    async def unembedded(self) -> int | None:
        """How many passages answered from have no vector yet; ``None`` in bm25 mode.

        Hybrid mode finds those passages by their words and names only, until a build embeds
        them: after a switch from bm25, or a build whose model failed.
        """
        if self.config.retrieval_mode != "hybrid":
            return None  # bm25 uses no vectors: none is missing
        return await catalog.unembedded_count(self.store)

    async def ensure_ready(self) -> None:
        """Make sure there is something to answer from.

        The embedded default builds (or catches up) its own index first; any other
        configuration with an empty index is refused with how to build it.
        """
        if self.config.embedded:
            await self.refresh()
        if await catalog.chunk_count(self.store) == 0:
            raise await self._empty_index()

    async def _empty_index(self) -> EmptyIndexError:
        empty = f"The index at {self.config.index_path} holds no passages"
        if await catalog.sources(self.store):
            # A build has run and decided every source: building again would decide the same.
            return EmptyIndexError(
                f"{empty}: no source that qualifies has anything indexed. Run 'python -m "
                "bot.cli index sources' to see why each source was left out, and 'python -m "
                "bot.cli index status' for any whose refresh failed."
            )
        return EmptyIndexError(
            f"{empty} yet, so there is nothing to answer from. "
            "Build it with 'python -m bot.cli index build'."
        )

    async def retrieve(self, question: str, limit: int = PASSAGES) -> Retrieval:
        """Select the passages for ``question``, exactly as the composer receives them.

        Raises:
            UsageError: the question is empty, too long or not text.
        """
        text = checked_question(question)
        results = await self.retriever.retrieve(text, limit)
        return Retrieval(text, await self.retriever.query(text), tuple(results))

    async def stale_sources(self, results: Sequence[Result]) -> list[str]:
        """Names of the sources behind ``results`` that are past their refresh interval."""
        moment = datetime.now(UTC)
        refreshed = await catalog.last_refreshed(self.store, {r.repo for r in results})
        return sorted(
            name
            for name, at in refreshed.items()
            if at is None
            or (moment - datetime.fromisoformat(at)).total_seconds()
            > self.config.interval_for(name)
        )

    def composer(self) -> Composer | None:
        """The configured composer (built on first use), or ``None`` for provider ``none``.

        Raises:
            ConfigError: the provider lacks its key or binary.
        """
        if not self._composer_built:
            self._composer = build_composer(self.config)
            self._composer_built = True
        return self._composer

    async def ask(self, question: str, limit: int = PASSAGES, *, origin: str = "cli") -> Outcome:
        """Answer ``question`` from the index, or decline it; record what happened.

        Safe to call concurrently: each call reads its own passages, asks the composer once
        and records through the single writer. Nothing from one question reaches another.

        Raises:
            UsageError: the question is empty, too long or not text.
            ConfigError: the provider lacks its key or binary.
            EmptyIndexError: nothing has been indexed.
            StoreError: the index cannot be read (an outcome it cannot record is returned
                all the same, with ``unrecorded`` saying why).
            ProviderError: the model could not be asked or failed (recorded as an error,
                never as a decline).
            Busy: the question waited too long for its turn with the model and was not asked
                (recorded as busy: neither a failure of the model nor a decline).
        """
        started = time.perf_counter()
        asked_at = now()
        text = checked_question(question)
        composer = self.composer()
        provider = composer.provider if composer else self.config.answer_provider
        retrieval = await self.retrieve(text, limit)
        passages = retrieval.results
        if not passages and await catalog.chunk_count(self.store) == 0:
            raise await self._empty_index()
        stale = tuple(await self.stale_sources(passages)) if passages else ()
        draft: Answer | None = None
        if passages and composer is not None:
            try:
                draft = await composer.compose(text, passages)
            except (ProviderError, Busy) as exc:
                busy = isinstance(exc, Busy)  # turned away before its turn: no model was asked
                failed = Asked(
                    text,
                    retrieval.query,
                    origin,
                    passages,
                    "busy" if busy else "error",
                    provider,
                    None if busy else composer.model,
                    reason=str(exc),
                    stale=stale,
                    asked_at=asked_at,
                )
                await self._record(_replace(failed, total_ms=_ms_since(started)))
                raise
        model = composer.model if composer and draft else None
        outcome = settle(text, retrieval.query, passages, stale, provider, model, draft)
        asked = records.asked_from(outcome, origin, draft, _ms_since(started), asked_at)
        ids = await self._record(asked)
        if isinstance(ids, str):
            return _replace(outcome, unrecorded=ids)
        log.info("question %s: %s", ids.question_id, outcome.kind)
        return _replace(outcome, question_id=ids.question_id, answer_id=ids.answer_id)

    async def _record(self, asked: Asked) -> records.Recorded | str:
        """Record ``asked``: its ids, or why the index could not take it (also logged).

        What befell the question (an answer, and what it cost; a decline; why the model
        failed) is the asker's whatever befalls its record, such as another process writing
        the index for longer than a write waits: it is shown, never thrown away for this.
        """
        try:
            return await records.record(self.store, asked)
        except StoreError as exc:
            log.warning("a question that ended %s was not recorded: %s", asked.outcome, exc)
            return str(exc)

    async def vote(self, answer_id: int, voter: str, helpful: bool) -> None:
        """Record one voter's feedback on an answer; voting again changes the vote."""
        await records.vote(self.store, answer_id, voter, helpful)

    async def gaps(self, since: str | None = None) -> list[backlog.GapGroup]:
        """The documentation-gap backlog: declined questions by kind, newest first."""
        return backlog.group(await records.declines(self.store, since))
