"""Heading anchors exactly as the docs site renders them.

zensical (like MkDocs) renders markdown with Python-Markdown's ``toc`` extension, so a
heading's id is its plain text, folded to ASCII, stripped of punctuation, lowercased, with
runs of whitespace and hyphens collapsed to one ``-``. A repeated id on one page gets ``_1``,
``_2``... and an explicit ``{#id}`` attribute wins. These functions reproduce that rule.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import MutableSet

_NOT_WORD = re.compile(r"[^\w\s-]")
_SEPARATORS = re.compile(r"[-\s]+")
_COUNTED = re.compile(r"^(.*)_([0-9]+)$")


def slugify(text: str) -> str:
    """Return the id the site gives a heading whose plain text is ``text``."""
    folded = unicodedata.normalize("NFKD", text)
    folded = folded.encode("ascii", "ignore").decode("ascii")
    folded = _NOT_WORD.sub("", folded).strip().lower()
    return _SEPARATORS.sub("-", folded)


def unique(anchor: str, used: MutableSet[str]) -> str:
    """Return ``anchor``, or the first free ``anchor_N``, and mark it used.

    An empty anchor becomes ``_1`` as on the site; an anchor that already ends in ``_N``
    continues counting from N, as Python-Markdown does.
    """
    if anchor in used or not anchor:
        match = _COUNTED.match(anchor)
        base, count = (match.group(1), int(match.group(2))) if match else (anchor, 0)
        count += 1
        while f"{base}_{count}" in used:
            count += 1
        anchor = f"{base}_{count}"
    used.add(anchor)
    return anchor
