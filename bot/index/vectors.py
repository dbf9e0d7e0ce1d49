"""Vectors as stored and as compared: packed float32, unit length, exact cosine.

There is no approximate index: the rows SQL selected are stacked into one matrix and every
one is scored, which at tens of thousands of chunks takes a millisecond or two and can never
miss a neighbour.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float32]

MAX_EMBED_CHARS = 2000  # past what a small model reads anyway (its token limit)


def embed_text(heading_path: Sequence[str], body: str) -> str:
    """What is embedded for a chunk: where it sits (its heading path), then its text."""
    return " › ".join(p for p in heading_path if p) + "\n" + body[:MAX_EMBED_CHARS]


def pack(vector: npt.ArrayLike) -> bytes:
    """A vector as stored on a chunk's row: little-endian float32."""
    return np.asarray(vector, dtype="<f4").tobytes()


def unpack(blob: bytes, dimensions: int) -> Matrix:
    """A stored vector back as float32; a blob of the wrong size is refused."""
    if len(blob) != dimensions * 4:
        raise ValueError(f"a stored vector holds {len(blob)} bytes, not {dimensions} floats")
    return np.frombuffer(blob, dtype="<f4").astype(np.float32)


def normalised(vectors: npt.ArrayLike) -> Matrix:
    """Rows scaled to unit length, so a dot product is their cosine; zero rows stay zero."""
    matrix = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    out: Matrix = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    return out


def stack(blobs: Sequence[bytes], dimensions: int) -> Matrix:
    """Stored vectors as one matrix, one row each, normalised."""
    if not blobs:
        return np.zeros((0, dimensions), dtype=np.float32)
    flat = np.frombuffer(b"".join(blobs), dtype="<f4")
    if flat.size != len(blobs) * dimensions:
        raise ValueError(f"stored vectors are not all {dimensions} floats wide")
    return normalised(flat.reshape(len(blobs), dimensions))


def nearest(
    matrix: Matrix, query: Matrix, limit: int, mask: npt.NDArray[np.bool_] | None = None
) -> list[int]:
    """Row numbers of the ``limit`` rows most similar to ``query``, most similar first.

    ``mask`` keeps only the rows where it is true (a question narrowed to one source).
    Ties go to the lower row, so the order is the same on every run.
    """
    if matrix.shape[0] == 0 or limit <= 0:
        return []
    scores = matrix @ normalised(query)[0]
    rows = np.flatnonzero(mask) if mask is not None else np.arange(matrix.shape[0])
    if rows.size == 0:
        return []
    picked = scores[rows]
    if rows.size > limit:
        # Only the best ``limit`` need ordering; partitioning first keeps this linear. The
        # cut keeps every row scoring at least the ``limit``-th best, so ties are all there.
        threshold = np.partition(picked, rows.size - limit)[rows.size - limit]
        keep = picked >= threshold
        rows, picked = rows[keep], picked[keep]
    order = np.lexsort((rows, -picked))[:limit]
    return [int(r) for r in rows[order]]
