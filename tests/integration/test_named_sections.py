"""Sections a question names by their heading rank higher, in a real index; openings do not."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.corpus.markdown import chunk_markdown
from tests.answering import built_engine

QUESTION = "how do I set a cache policy so that a store keeps only some of its results?"

_CACHES_OPENING = """# Caches

Widgets remember what they computed, so that asking twice costs once.

"""
_STORES_SECTION = """## Stores

A store keeps its widgets' results in a cache. Set the cache policy of the store, and the
cache keeps what the policy says; a store whose cache has no policy set keeps every result.
"""
CACHES = (
    _CACHES_OPENING
    + """## Cache policy

A widget's results are kept for an hour unless it says otherwise. Write `keep = "10m"`
in the widget's own file for ten minutes, `keep = "forever"` to keep them until the
widget changes, or `keep = "never"` to compute every result again each time it is asked
for. A widget that reads the clock should not be kept at all.

"""
    + _STORES_SECTION
)
# The same "Stores" section, on a page of its own.
STORES = _CACHES_OPENING + _STORES_SECTION
# A page titled by what the question names, its opening section matching nearly as well.
POLICY = """# Cache policy

A store keeps a widget's results for an hour unless it says otherwise. Write `keep = "10m"`
in the widget's own file for ten minutes, `keep = "forever"` to keep them until the
widget changes, or `keep = "never"` to compute every result again each time it is asked
for. A widget that reads the clock should not be kept at all.

## Clocks

A widget that reads the clock is never kept.
"""
# The same opening, too long for one passage: its second part opens the page as well.
LONG_POLICY = (
    "# Cache policy\n\n"
    + "Widgets that draw boxes, ring bells or pick fonts compute something small; widgets that\n"
    "read files or ask servers compute something large, and gain the most.\n\n"
    * 30
    + """A store keeps a widget's results for an hour unless it says otherwise. Write `keep = "10m"`
in the widget's own file for ten minutes, or `keep = "never"` to keep none. Set the
policy of a store's cache, and the store keeps only the results the policy says.

## Clocks

A widget that reads the clock is never kept.
"""
)
TAGS_PY = '''"""Building widgets."""


def build_tags(widget):
    """The build tags a widget's binary is compiled with: each leaves a part out, the docs too."""
    return widget.tags
'''
BUILDING = """# Building

Widgets are compiled once for each machine.

## Leaving parts out

Pass a build tag to leave a part out: `nodocs` leaves the docs out, and `noman` the manual
pages.
"""
SETTINGS = """# Settings

## Colours

Boxes are drawn in the colours of your theme; pick `colour = "none"` for plain text.

## Sounds

The bell rings when a long job ends; turn it off in the settings file to silence it.

## Fonts

Boxes are drawn with the font of your terminal; pick one with box-drawing characters.

## Keys

Every command has a key; the list of keys is printed by `widgets keys`.

## Layouts

Widgets are laid out in rows, or in columns with `layout = "columns"`.
"""


async def _first_two(tmp_path: Path, files: dict[str, str], question: str) -> list[tuple[str, str]]:
    """The heading and path of the first two passages for ``question`` over ``files``."""
    async with built_engine(tmp_path, {"widgets": files}) as engine:
        results = await engine.retriever.retrieve(question)
    return [(r.heading, r.path) for r in results[:2]]


@pytest.mark.parametrize(
    "question",
    [QUESTION, f"in widgets, {QUESTION}"],
    ids=["search of everything", "named repository's own search"],
)
async def test_a_section_the_question_names_by_its_heading_passes_one_that_matches_more(
    tmp_path, question
):
    files = {"docs/caches.md": CACHES, "docs/settings.md": SETTINGS}
    assert await _first_two(tmp_path, files, question) == [
        ("Cache policy", "docs/caches.md"),
        ("Stores", "docs/caches.md"),
    ]


async def test_a_page_opening_the_question_names_is_not_lifted(tmp_path):
    # Named, the opening would pass "Stores" as the section above does; its page's evidence is
    # what counts for it.
    files = {"docs/policy.md": POLICY, "docs/caches.md": STORES, "docs/settings.md": SETTINGS}
    assert await _first_two(tmp_path, files, QUESTION) == [
        ("Stores", "docs/caches.md"),
        ("Cache policy", "docs/policy.md"),
    ]


async def test_no_part_of_a_long_opening_is_lifted(tmp_path):
    # Cut in two, the opening's second part is not the page's first passage, yet opens it.
    parts = [c for c in chunk_markdown(LONG_POLICY) if c.heading == "Cache policy"]
    assert len(parts) == 2
    files = {"docs/policy.md": LONG_POLICY, "docs/caches.md": STORES, "docs/settings.md": SETTINGS}
    assert await _first_two(tmp_path, files, QUESTION) == [
        ("Stores", "docs/caches.md"),
        ("Cache policy", "docs/policy.md"),
    ]


async def test_a_symbol_whose_name_says_the_heading_is_not_lifted(tmp_path):
    # `build_tags` reads as "build tags"; a question names a symbol by writing it as code.
    files = {"widgets/tags.py": TAGS_PY, "docs/building.md": BUILDING, "docs/settings.md": SETTINGS}
    question = "is there a build tag to leave the docs out of my binary?"
    assert await _first_two(tmp_path, files, question) == [
        ("Leaving parts out", "docs/building.md"),
        ("build_tags", "widgets/tags.py"),
    ]
