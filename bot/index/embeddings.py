"""Index time for the vector half: embed the chunks that have no vector yet.

A refresh writes chunks as it always has; the writer carries a vector over when a rewritten
document keeps a chunk's text, so only new or changed text reaches the model. This pass then
embeds every chunk still without a vector, in batches, each batch its own transaction, so an
interrupted run keeps what it finished and the next one picks up the rest.

The model's name and the vectors' width (measured from the model) are recorded. A different
model, or a different width, clears every vector first: vectors of two models are not
comparable, so they are never mixed.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from bot.index.embedder import Embedder, dimensions_of
from bot.index.store import Store, now
from bot.index.vectors import embed_text, pack
from bot.index.writer import PATH_SEPARATOR

log = logging.getLogger(__name__)

BATCH = 256


@dataclass(frozen=True, slots=True)
class EmbeddingReport:
    """What one embedding pass did."""

    model: str
    dimensions: int
    embedded: int
    reset: bool  # the model changed, so every vector was made again


@dataclass(frozen=True, slots=True)
class RecordedModel:
    """The model the stored vectors came from."""

    name: str
    dimensions: int


async def recorded_model(store: Store) -> RecordedModel | None:
    """The model recorded with the stored vectors, if any."""
    row = await store.fetchone("SELECT name, dimensions FROM embedding_model WHERE id = 1")
    return RecordedModel(row["name"], row["dimensions"]) if row else None


async def embed_pending(store: Store, embedder: Embedder, batch: int = BATCH) -> EmbeddingReport:
    """Give every chunk without a vector one, re-making all of them if the model changed."""
    recorded = await recorded_model(store)
    bare = await store.fetchone("SELECT count(*) FROM chunks WHERE vector IS NULL")
    if recorded is not None and recorded.name == embedder.name and bare and bare[0] == 0:
        # Nothing new and the same model: not even loading it is needed.
        return EmbeddingReport(recorded.name, recorded.dimensions, 0, reset=False)
    dimensions = await asyncio.to_thread(dimensions_of, embedder)
    reset = recorded is not None and recorded != RecordedModel(embedder.name, dimensions)
    if recorded is None or reset:
        async with store.write() as conn:
            if reset:
                await conn.execute("UPDATE chunks SET vector = NULL WHERE vector IS NOT NULL")
            await conn.execute(
                "INSERT INTO embedding_model (id, name, dimensions, recorded_at) "
                "VALUES (1, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET name = excluded.name, "
                "dimensions = excluded.dimensions, recorded_at = excluded.recorded_at",
                (embedder.name, dimensions, now()),
            )
        if reset:
            log.info("embedding model changed to %s: every chunk is embedded again", embedder.name)
    rows = await store.fetchall(
        "SELECT id, heading_path, body FROM chunks WHERE vector IS NULL ORDER BY id"
    )
    for start in range(0, len(rows), batch):
        part = rows[start : start + batch]
        texts = [embed_text(r["heading_path"].split(PATH_SEPARATOR), r["body"]) for r in part]
        vectors = await asyncio.to_thread(embedder.embed, texts)
        if vectors.shape != (len(part), dimensions):
            raise ValueError(
                f"the embedding model {embedder.name} returned vectors of shape "
                f"{vectors.shape} for {len(part)} texts of width {dimensions}"
            )
        async with store.write() as conn:
            await conn.executemany(
                "UPDATE chunks SET vector = ? WHERE id = ? AND vector IS NULL",
                [(pack(v), r["id"]) for v, r in zip(vectors, part, strict=True)],
            )
    return EmbeddingReport(embedder.name, dimensions, len(rows), reset)
