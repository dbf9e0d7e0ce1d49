"""Identifiers as words: ``defaultTakeCount`` is findable as "default take count".

The search tokenizer keeps ``defaultTakeCount`` as one token, and a question almost never
contains the identifier, only its words. Splitting happens on case changes, underscores,
and letter/digit boundaries; acronyms stay whole (``HTTPServer`` -> ``http server``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Only identifiers with a case change or an inner underscore can split into several words;
# finding those first keeps ordinary prose words out of the (much slower) splitting.
_COMPOUND = re.compile(
    r"\b[A-Za-z_]*(?:[a-z0-9][A-Z]|[A-Z]{2}[a-z]|[A-Za-z0-9]_[A-Za-z0-9])[A-Za-z0-9_]*"
)
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def split_identifier(name: str) -> list[str]:
    """Return the lowercase words of one identifier (``HTTPServer`` -> ``['http', 'server']``)."""
    return [p.lower() for p in _PART.findall(name)]


def compound_words(text: str) -> Iterable[tuple[str, list[str]]]:
    """Yield ``(identifier, words)`` for every identifier in ``text`` made of several words."""
    for match in _COMPOUND.finditer(text):
        name = match.group(0)
        words = split_identifier(name)
        if len(words) > 1:
            yield name, words


def search_terms(*texts: str) -> str:
    """Return the split words of every compound identifier in ``texts``, once each, in order.

    Each word is kept once per chunk: the column says *which* words the identifiers hold,
    and repeating them would let one long identifier list outweigh the prose.
    """
    seen: set[str] = set()
    out: list[str] = []
    for text in texts:
        for _, words in compound_words(text):
            for word in words:
                if word not in seen:
                    seen.add(word)
                    out.append(word)
    return " ".join(out)
