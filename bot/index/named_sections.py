"""Sections a question names by their heading.

Someone who asks for "the syntax of a for expression" or "a build tag to leave out the docs"
names a section of the documentation by its title: *For Expressions*, *Build tags*. BM25
credits the heading's words as it credits any, so a neighbouring section that uses the same
words more often in its text (a section on collection values that warns about a key named
``for``) can still come first. A heading said in full by the question is a surer sign: every
one of its words, in its order, with nothing between them.

Some headings are left out, because a question says them without meaning them:

- a heading of one word (*Error*, *Client*, *Flags*), which most questions about it use in
  passing; a leading article does not count as a word (*The client* is one);
- a heading of function words alone (*What is it?*), which names nothing;
- the page's opening section, usually the one under its title: the page's evidence already
  counts how well a whole page matches (``bot.index.page_evidence``), and an introduction is
  seldom the answer when a question names its page. Which section opens a page is told by
  its place, not by its heading's level, which the index does not keep: on a page whose
  title has no text of its own, the first subsection opens the page and is left out too.

Code passages are not concerned. A symbol's name often reads as a heading would
(``build_tags``), but a question that means a symbol writes its name as code, and the names it
writes so have rules of their own (``WrittenNames`` in ``bot.index.symbols``).
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Sequence

from bot.index.query import FUNCTION_WORDS, question_words, stem

# How much higher a section ranks when the question names it by its heading. Measured on the
# benchmark sets (BENCHMARKS.md, "A section the question names"): from 1.05 to 1.7 no answer
# ranks lower on any set, and this is the middle of that. At 2 a section that a question names
# without meaning it starts to pass answers: a blog post's "What Happened", for a question
# that asks what happens when a number is divided by zero.
NAMED_SECTION = 1.4

_ARTICLES = frozenset({"a", "an", "the"})


def said_words(question: str) -> tuple[str, ...]:
    """The question's words, lowercased and stemmed, in their order, for ``names_section``."""
    return tuple(_form(word) for word in _words(question))


def names_section(heading: str, said: Sequence[str]) -> bool:
    """Whether a question whose ``said_words`` are ``said`` says all of ``heading``, in order.

    A heading of fewer than two words, leading articles aside, or of function words alone,
    is never named this way.
    """
    words = _heading_words(heading)
    width = len(words)
    if width < 2:
        return False
    first = words[0]
    return any(
        said[i] == first and tuple(said[i : i + width]) == words
        for i in range(len(said) - width + 1)
    )


# Every search asks this of a few hundred candidates, and the same headings come back from one
# question to the next: their words are worked out once.
@functools.lru_cache(maxsize=8192)
def _heading_words(heading: str) -> tuple[str, ...]:
    words = _words(heading)
    while words and words[0] in _ARTICLES:
        del words[0]
    if all(word in FUNCTION_WORDS for word in words):
        return ()
    return tuple(_form(word) for word in words)


def _words(text: str) -> list[str]:
    # One form for each character, so that "é" typed as one character or as two meets.
    return question_words(unicodedata.normalize("NFKC", text).casefold())


def _form(word: str) -> str:
    # ``stem`` leaves short plurals be (*tags*, *keys*); a heading and a question differ by
    # them as often as by any other form.
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return stem(word)
