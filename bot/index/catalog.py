"""Reading what the index holds about its sources: verdicts, commits, freshness, totals."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.index.store import Store


@dataclass(frozen=True, slots=True)
class SourceState:
    """One row of ``sources`` with its document and chunk counts."""

    name: str
    origin: str
    location: str
    verdict: str
    clause: str
    detail: str
    web_url: str | None
    site_url: str | None
    default_branch: str | None
    branch_commit: str | None
    release_tag: str | None
    release_commit: str | None
    corpus_version: int | None
    checked_at: str | None
    indexed_at: str | None
    refreshed_at: str | None
    last_error: str | None
    last_error_at: str | None
    release_error: str | None = None
    site_commit: str | None = None
    site_config: str | None = None
    site_config_url: str | None = None
    site_seen_url: str | None = None
    site_seen_commit: str | None = None
    site_seen_at: str | None = None
    documents: int = 0
    chunks: int = 0

    def age_seconds(self, at: datetime | None = None) -> float | None:
        """Seconds since the source was last refreshed, or ``None`` if it never was."""
        if not self.refreshed_at:
            return None
        moment = at or datetime.now(UTC)
        return (moment - datetime.fromisoformat(self.refreshed_at)).total_seconds()

    def is_stale(self, interval: float, at: datetime | None = None) -> bool:
        """Whether the source is past its refresh interval (never indexed counts as stale)."""
        age = self.age_seconds(at)
        return age is None or age > interval


@dataclass(frozen=True, slots=True)
class ListingFailure:
    """The last GitLab group listing, when it failed: the group, what it said, and when."""

    group: str
    error: str
    failed_at: str


async def listing_failure(store: Store) -> ListingFailure | None:
    """The failed listing the last build left standing, or ``None`` if the last one worked."""
    row = await store.fetchone("SELECT grp, error, failed_at FROM listing_failure")
    return ListingFailure(row[0], row[1], row[2]) if row else None


_SOURCES_SQL = """
SELECT s.name, s.origin, s.location, s.verdict, s.clause, s.detail, s.web_url, s.site_url,
       s.default_branch, s.branch_commit, s.release_tag, s.release_commit, s.corpus_version,
       s.checked_at, s.indexed_at, s.refreshed_at, s.last_error, s.last_error_at,
       s.release_error, s.site_commit, s.site_config, s.site_config_url,
       s.site_seen_url, s.site_seen_commit, s.site_seen_at,
       (SELECT count(*) FROM documents d WHERE d.source = s.name) AS documents,
       (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.document_id
         WHERE d.source = s.name) AS chunks
FROM sources s
ORDER BY s.name
"""


async def sources(store: Store) -> list[SourceState]:
    """Every source the index knows, with counts, in name order."""
    return [SourceState(**dict(row)) for row in await store.fetchall(_SOURCES_SQL)]


async def source(store: Store, name: str) -> SourceState | None:
    """One source by name, or ``None``."""
    return next((s for s in await sources(store) if s.name == name), None)


async def fingerprints(store: Store, name: str) -> dict[str, str]:
    """Each indexed path of a source and the fingerprint it was indexed with."""
    rows = await store.fetchall("SELECT path, fingerprint FROM documents WHERE source = ?", (name,))
    return {row[0]: row[1] for row in rows}


async def paths_of_kind(store: Store, name: str, kind: str) -> frozenset[str]:
    """Each indexed path of a source whose documents are of ``kind``."""
    rows = await store.fetchall(
        "SELECT path FROM documents WHERE source = ? AND kind = ?", (name, kind)
    )
    return frozenset(row[0] for row in rows)


# Admitted sources are answered from, and so are unresolved ones: unresolved means a fact could
# not be checked this run, not that the source stopped qualifying, so its last index stands.
# Every query of what is answered from uses these, so no ranking can serve other chunks.
SERVED = "s.verdict != 'rejected'"
SERVED_SOURCES_SQL = "SELECT name FROM sources s WHERE " + SERVED  # noqa: S608 (constants only)
# A chunk with its document and its source, for reading the served ones (``SERVED``).
CHUNK_JOINS = (
    "FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.name = d.source"
)
SERVED_CHUNKS = CHUNK_JOINS + " WHERE " + SERVED


async def chunk_count(store: Store) -> int:
    """How many retrievable chunks the index holds: from admitted and unresolved sources."""
    row = await store.fetchone("SELECT count(*) " + SERVED_CHUNKS)
    return int(row[0]) if row else 0


async def unembedded_count(store: Store) -> int:
    """How many retrievable chunks have no vector yet: hybrid mode finds them by words alone."""
    row = await store.fetchone("SELECT count(*) " + SERVED_CHUNKS + " AND c.vector IS NULL")
    return int(row[0]) if row else 0


async def last_refreshed(store: Store, names: Iterable[str]) -> dict[str, str | None]:
    """When each named source was last refreshed (``None`` if never): cheap, for every answer."""
    wanted = sorted(set(names))
    if not wanted:
        return {}
    marks = ", ".join("?" * len(wanted))
    rows = await store.fetchall(
        f"SELECT name, refreshed_at FROM sources WHERE name IN ({marks})",  # noqa: S608
        tuple(wanted),
    )
    return {row[0]: row[1] for row in rows}
