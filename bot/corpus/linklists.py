"""Sections that send the reader elsewhere: lists of links, and short pointers to a page.

A list of links ("See also", "Next up", an index of recipes) is dense with the words of the
pages it points at and answers nothing itself, which is exactly what BM25 rewards. A pointer
is the same trap with one link: a short section that sums a topic up and ends by sending the
reader to the page that covers it ("Read more about it in [Active Help](active_help.md)").
Both are ranked down, not removed, so a question that nothing else answers still finds them.
Measured on the benchmark corpus, lists of links at 0.3 took one docs question from a miss to
a hit; pointers at 0.7 put two answering sections above theirs (docs MRR 0.693 -> 0.714),
and moved nothing on 96 further questions.
"""

from __future__ import annotations

import re

LINK_LIST_WEIGHT = 0.3
POINTER_WEIGHT = 0.7
_MIN_SHARE = 0.6  # of a section's items that start with a link
_POINTER_MAX_CHARS = 400  # of text besides headings: a summary, not an explanation

# A link to another markdown page of the same documentation, not to a web address or anchor.
_PAGE_LINK = re.compile(r"\[[^\]]+\]\((?![a-z][a-z0-9+.-]*:|#)[^)\s]+\.md(?:#[^)]*)?\)", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")

# A list marker or emphasis, then a markdown link: "- [Setup](setup.md): ...", "**[Next](x)**".
_LEADING_LINK = re.compile(r"^(?:[-*+]|\d+[.)])?\s*(?:\*\*|__|\*|_)?\s*\[[^\]]*\]\([^)]*\)")
_NOT_AN_ITEM = ("#", "```", "~~~", "!!!", "???", "<!--", "---", "===")
# A line of nothing but images, linked or not: the build and coverage badges under a README's
# title. They decorate the project's description; they are not a list of places to go.
_BADGES = re.compile(r"(?:\[?!\[[^\]]*\]\([^)]*\)(?:\]\([^)]*\))?\s*)+")


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
            and not _BADGES.fullmatch(line.strip())
        ):
            items.append(line.strip())
    if not items:
        return False
    linked = sum(1 for item in items if _LEADING_LINK.match(item))
    return linked >= _MIN_SHARE * len(items)


def is_pointer(text: str) -> bool:
    """Whether a section is short and ends by sending the reader to another page."""
    lines = [line for line in text.split("\n") if not line.startswith("#")]
    body = " ".join(" ".join(lines).split())
    if not body or len(body) > _POINTER_MAX_CHARS:
        return False
    return bool(_PAGE_LINK.search(_SENTENCE_END.split(body)[-1]))


def ranking_weight(text: str) -> float:
    """The multiplier a section's score gets: lower for lists of links and for pointers."""
    if is_link_list(text):
        return LINK_LIST_WEIGHT
    return POINTER_WEIGHT if is_pointer(text) else 1.0
