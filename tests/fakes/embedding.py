"""A small deterministic embedding model implementing the ``Embedder`` protocol.

Each word is stemmed crudely and looked up in a table of *concepts*: words listed together
share one concept, so "mandatory", "required" and "refuses ... without" land on the same
axis, which is all a test needs to stand in for meaning. Every other word gets an axis of its
own by hash. The vector counts concepts, so texts sharing concepts point the same way.

It records every text it embedded, so tests can tell which chunks reached the model.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bot.index.embedder import MODEL_DISTRIBUTION, MODEL_PACKAGE
from bot.index.vectors import Matrix, normalised

_WORD = re.compile(r"[a-z]+")

CONCEPTS: tuple[tuple[str, ...], ...] = (
    ("required", "mandatory", "obligatory", "refuse", "refuses", "must"),
    ("flag", "option", "switch"),
    ("program", "app", "application", "tool"),
    ("broadcast", "distribute", "fan", "spread"),
    ("note", "notes", "memo", "memos"),
)
_FILLER = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "it",
        "to",
        "of",
        "and",
        "or",
        "for",
        "in",
        "on",
        "with",
        "how",
        "do",
        "i",
        "can",
        "that",
        "my",
        "this",
    ]
)


class ConceptEmbedder:
    """Concept counts over ``dimensions`` axes; the name says which table and width."""

    def __init__(self, dimensions: int = 64, name: str | None = None) -> None:
        self.dimensions = dimensions
        self.name = name or f"concept-test-model/{dimensions}"
        self.embedded: list[str] = []
        self._concept = {w: i for i, words in enumerate(CONCEPTS) for w in words}

    def _axis(self, word: str) -> int:
        if word in self._concept:
            return self._concept[word]
        digest = hashlib.sha1(word.encode(), usedforsecurity=False).digest()
        return len(CONCEPTS) + int.from_bytes(digest[:4], "big") % (self.dimensions - len(CONCEPTS))

    def embed(self, texts: Sequence[str]) -> Matrix:
        """One concept-count row per text, normalised."""
        self.embedded.extend(texts)
        matrix = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                if word not in _FILLER:
                    matrix[row, self._axis(word)] += 1.0
        return normalised(matrix)


def modules_without_metadata(folder: Path) -> Path:
    """The model's modules, importable from ``folder`` once it is on the path, and empty.

    Like a copy put there by hand: no package metadata says which version they are.
    """
    for module in (MODEL_PACKAGE, "sentence_transformers"):
        (folder / module).mkdir(parents=True)
        (folder / module / "__init__.py").write_text("")
    return folder


def modules_that_fail_to_load(folder: Path) -> Path:
    """The model's modules, installed as a package is (with its metadata), and empty.

    Hybrid mode starts with them, as with the real model; the first embedding then fails,
    since the package holds no model to load: a build whose model failed.
    """
    modules_without_metadata(folder)
    info = folder / f"{MODEL_DISTRIBUTION.replace('-', '_')}-0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {MODEL_DISTRIBUTION}\nVersion: 0.0\n"
    )
    return folder
