"""Sections that are lists of links ("See also", "Next up", an index of recipes).

They are dense with the words of the pages they point at and answer nothing themselves,
which is exactly what BM25 rewards, so they are ranked down (not removed: a question about
where to read next may still find them). Measured on the benchmark corpus, this took one
docs question from a miss to a hit and cost nothing elsewhere.
"""

from __future__ import annotations

import re

LINK_LIST_WEIGHT = 0.3
_MIN_SHARE = 0.6  # of a section's items that start with a link

# A list marker or emphasis, then a markdown link: "- [Setup](setup.md): ...", "**[Next](x)**".
_LEADING_LINK = re.compile(r"^(?:[-*+]|\d+[.)])?\s*(?:\*\*|__|\*|_)?\s*\[[^\]]*\]\([^)]*\)")
_NOT_AN_ITEM = ("#", "```", "~~~", "!!!", "???", "<!--", "---", "===")


def is_link_list(text: str) -> bool:
    """Whether a section is mostly a list of links, judged by how its items begin.

    A section whose own heading is a link (an index page's entry) counts as one too.
    """
    lines = text.split("\n")
    if lines and lines[0].startswith("#"):
        if _LEADING_LINK.match(lines[0].lstrip("#").strip()):
            return True
        lines = lines[1:]
    # An item starts at the left margin; indented lines continue the item above them, and
    # nothing inside a fenced block is an item.
    items = []
    fenced = False
    for line in lines:
        if line.startswith(("```", "~~~")):
            fenced = not fenced
        elif (
            line.strip()
            and not fenced
            and not line[0].isspace()
            and not line.startswith(_NOT_AN_ITEM)
        ):
            items.append(line.strip())
    if not items:
        return False
    linked = sum(1 for item in items if _LEADING_LINK.match(item))
    return linked >= _MIN_SHARE * len(items)


def ranking_weight(text: str) -> float:
    """The multiplier a section's score gets: lower for lists of links."""
    return LINK_LIST_WEIGHT if is_link_list(text) else 1.0
