import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.corpus.markdown import MAX_CHUNK_BYTES, chunk_markdown, title_from_path


def _by_heading(text, title=""):
    return {c.heading: c for c in chunk_markdown(text, title)}


def test_one_chunk_per_section_with_its_heading_path():
    chunks = chunk_markdown("# Guide\n\nIntro.\n\n## Setup\n\nSteps.\n\n### Linux\n\nApt.\n")
    assert [c.heading for c in chunks] == ["Guide", "Setup", "Linux"]
    assert chunks[2].heading_path == ("Guide", "Setup", "Linux")
    assert chunks[2].anchor == "linux"
    assert (chunks[1].start_line, chunks[1].end_line) == (5, 7)


def test_front_matter_title_heads_the_path_and_is_never_a_chunk():
    text = "---\ntitle: Webhook payloads\n---\n\nBody first.\n\n## Push\n\nFields.\n"
    chunks = chunk_markdown(text)
    assert chunks[0].heading == "Webhook payloads"
    assert chunks[0].text == "Body first."
    assert chunks[1].heading_path == ("Webhook payloads", "Push")
    assert all("title:" not in c.text for c in chunks)


def test_a_byte_order_mark_hides_neither_the_title_nor_the_front_matter():
    chunks = chunk_markdown("\ufeff# Bommed Page\n\nText.\n", "Fallback")
    assert (chunks[0].heading, chunks[0].anchor) == ("Bommed Page", "bommed-page")
    assert chunks[0].text == "# Bommed Page\n\nText."
    chunks = chunk_markdown("\ufeff---\ntitle: FM Title\n---\n\nBody.\n", "Fallback")
    assert [(c.heading, c.text, c.start_line) for c in chunks] == [("FM Title", "Body.", 5)]


def test_text_before_the_first_heading_is_headed_by_the_page_title():
    chunks = chunk_markdown("Some words.\n\n## Next\n\nMore.\n", "Exit codes")
    assert (chunks[0].heading, chunks[0].anchor) == ("Exit codes", "")


def test_setext_headings_are_headings():
    chunks = _by_heading("Title\n=====\n\nIntro.\n\nPart\n----\n\nText.\n")
    assert chunks["Part"].heading_path == ("Title", "Part")


def test_an_empty_heading_merges_into_the_chunk_before():
    chunks = chunk_markdown("# A\n\nText.\n\n## Empty\n\n### Child\n\nWords.\n")
    assert [c.heading for c in chunks] == ["A", "Child"]
    assert chunks[0].text.endswith("## Empty")
    assert chunks[1].heading_path == ("A", "Empty", "Child")


def test_an_empty_heading_with_nothing_before_joins_the_next_chunk():
    chunks = chunk_markdown("# Title\n## Sub\nWords.\n")
    assert [c.heading for c in chunks] == ["Sub"]
    assert chunks[0].text.startswith("# Title") and chunks[0].start_line == 1


def test_a_banner_before_the_first_heading_joins_it_rather_than_standing_alone():
    chunks = chunk_markdown("---\ntitle: Inv\n---\n\n![ctx](../banner.png)\n\n## One\n\nText.\n")
    assert [c.heading for c in chunks] == ["One"]
    assert chunks[0].text.startswith("![ctx](../banner.png)") and chunks[0].start_line == 5


def test_a_section_of_images_comments_and_tags_alone_merges_into_the_one_before():
    text = (
        "# R\n\nIntro.\n\n## Sponsors\n\n<!-- omit in TOC -->\n\n"
        "### Gold\n\n[![](gold.svg)](https://x.example) ![b][ref]\n\n"
        '### Silver\n\n<p align="center"><img src="s.svg"></p>\n'
    )
    chunks = chunk_markdown(text)
    assert [c.heading for c in chunks] == ["R"]
    assert chunks[0].text.endswith('<img src="s.svg"></p>')


def test_a_section_whose_link_or_tag_holds_words_stands_alone():
    chunks = chunk_markdown("# A\n\nx\n\n## B\n\n[Setup](setup.md)\n\n## C\n\n<b>Hello</b>\n")
    assert [c.heading for c in chunks] == ["A", "B", "C"]


def test_headings_inside_fences_are_not_sections():
    chunks = chunk_markdown("# A\n\n```sh\n# comment\n```\n")
    assert [c.heading for c in chunks] == ["A"]


def test_heading_text_keeps_inline_markup_and_drops_attribute_lists():
    chunks = _by_heading("# Page\n\nx\n\n## `urfave_cli_no_docs` build tag {#tag}\n\ny\n")
    chunk = chunks["`urfave_cli_no_docs` build tag"]
    assert chunk.anchor == "tag"


def test_heading_text_shows_a_links_text_without_images_or_tags():
    chunks = _by_heading(
        "# Page\n\nx\n\n## [`ctx` Hub](hub.md) ![badge](b.svg)\n\ny\n\n"
        '## <a name="install"></a>Install *now*\n\nz\n'
    )
    assert chunks["`ctx` Hub"].anchor == "ctx-hub"
    assert chunks["Install *now*"].heading_path == ("Page", "Install *now*")


def test_a_title_of_badges_is_the_project_name_and_reference_links_are_read():
    text = (
        "# Serde &emsp; [![Build Status]][actions] [![Docs]][docs]\n\nA framework.\n\n"
        "## Using [the derive][derive]\n\nDerive it.\n\n"
        "[Build Status]: https://ci.example/badge.svg\n[actions]: https://ci.example\n"
        "[Docs]: https://docs.example/badge.svg\n[docs]: https://docs.example\n"
        "[derive]: https://serde.example/derive\n"
    )
    chunks = chunk_markdown(text)
    assert [c.heading_path for c in chunks] == [("Serde",), ("Serde", "Using the derive")]
    assert [c.anchor for c in chunks] == ["serde", "using-the-derive"]


def test_a_heading_of_images_alone_is_named_by_their_alt_text():
    chunks = chunk_markdown("# ![Widgets](logo.svg)\n\nWidgets are gears.\n", "Readme")
    assert chunks[0].heading_path == ("Widgets",)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(["Word", "`code`", "[link](x.md)", "![alt](i.svg)", "<b>", "</b>", "**"]),
        min_size=1,
        max_size=6,
    )
)
def test_a_heading_shows_no_link_address_image_or_tag(pieces):
    chunks = chunk_markdown(f"# P\n\nx\n\n## {' '.join(pieces)} end\n\ny\n")
    heading = chunks[-1].heading
    assert "](" not in heading and "<" not in heading and heading.endswith("end"), heading


def test_anchors_repeat_with_a_counter():
    chunks = chunk_markdown("# P\n\nx\n\n## Usage\n\na\n\n## Usage\n\nb\n")
    assert [c.anchor for c in chunks] == ["p", "usage", "usage_1"]


def test_inline_markup_is_removed_from_anchors():
    chunks = chunk_markdown("# P\n\nx\n\n## Use **bold** [link](u) & `code`!\n\ny\n")
    assert chunks[1].anchor == "use-bold-link-code"


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        (":warning: Program Arrays", "program-arrays"),
        (":material-head-cog: Advanced: Special Map Sections", "advanced-special-map-sections"),
        ("**:tada:** Done :+1:", "done"),
        ("Use `:ok:` here", "use-ok-here"),
        ("Ratio 3:1:2", "ratio-312"),
    ],
)
def test_emoji_shortcodes_are_icons_with_no_text_in_the_anchor(heading, anchor):
    chunks = chunk_markdown(f"# P\n\nx\n\n## {heading}\n\ny\n")
    assert chunks[1].anchor == anchor
    assert chunks[1].heading == heading


def test_identifiers_are_searchable_by_their_words():
    chunks = chunk_markdown("# MaintainerPermissions\n\nUse `WithBaseURL` here.\n")
    assert chunks[0].terms.split() == ["maintainer", "permissions", "with", "base", "url"]


def test_long_sections_split_with_overlap_and_honest_spans():
    para = ("word " * 60).strip()
    text = "# Big\n\n" + "\n\n".join(para for _ in range(40)) + "\n"
    chunks = chunk_markdown(text)
    lines = text.split("\n")
    assert len(chunks) > 1
    for chunk in chunks:
        assert len(chunk.text.encode()) <= MAX_CHUNK_BYTES
        assert "\n".join(lines[chunk.start_line - 1 : chunk.end_line]) == chunk.text
        assert chunk.heading == "Big" and chunk.anchor == "big"
    for a, b in itertools.pairwise(chunks):
        assert b.start_byte < a.end_byte  # they overlap
        assert 200 <= a.end_byte - b.start_byte <= 200 + len(para) + 1  # from the nearest line


def test_long_sections_never_cut_inside_a_fence():
    fence = "```go\n" + "x := 1\n" * 300 + "```"
    text = "# F\n\n" + ("prose " * 100 + "\n\n") * 5 + fence + "\n\nafter\n"
    for chunk in chunk_markdown(text):
        assert chunk.text.count("```") % 2 == 0


def test_a_fence_longer_than_the_cap_is_one_part_and_the_text_after_it_another():
    fence = "```go\n" + "x := 1\n" * 800 + "```"
    text = "# F\n\n" + fence + "\n\nafter the fence\n"
    chunks = chunk_markdown(text)
    whole = [c for c in chunks if "```go" in c.text]
    assert len(whole) == 1 and whole[0].text.endswith("```")
    assert whole[0].text.startswith("# F")  # the heading goes with it, never on its own
    assert "after the fence" not in whole[0].text
    assert "after the fence" in chunks[-1].text
    ending = chunk_markdown("# F\n\n" + fence + "\n")
    assert [c.text for c in ending] == ["# F\n\n" + fence]  # no tail cut after it


def test_no_part_is_the_heading_alone_when_a_long_line_follows_it():
    heading = "# Guide\n\n## Long\n"
    for body in ("word " * 2000, "A short opening.\n" + "word " * 2000):
        chunks = chunk_markdown(heading + body + "\n")
        assert len(chunks) > 1
        # Cut at the byte limit, not at the scrap of a line break early in the part.
        assert len(chunks[0].text.encode()) == MAX_CHUNK_BYTES
        assert "word" in chunks[0].text
        for a, b in itertools.pairwise(chunks):
            assert a.end_byte - b.start_byte >= 200  # they overlap as promised


def test_long_sections_are_cut_between_paragraphs_when_they_can_be():
    para = "\n".join("a line of a paragraph, " * 3 for _ in range(4))
    text = "# Paras\n\n" + "\n\n".join(para for _ in range(30)) + "\n"
    lines = text.split("\n")
    chunks = chunk_markdown(text)
    assert len(chunks) > 1
    for chunk in chunks[:-1]:
        assert lines[chunk.end_line] == ""  # the line after the part is a blank one


def test_a_line_longer_than_the_cap_is_cut_between_characters():
    text = "# Wide\n\n" + "é€" * 1500 + "\n"
    raw = text.encode()
    chunks = chunk_markdown(text)
    assert len(chunks) > 1
    for chunk in chunks:
        assert raw[chunk.start_byte : chunk.end_byte].decode() == chunk.text
        assert len(chunk.text.encode()) <= MAX_CHUNK_BYTES


def test_the_part_after_a_long_line_repeats_only_its_end():
    text = "# L\n\n" + "a" * 3900 + "\n" + "a short line\n" * 100
    chunks = chunk_markdown(text)
    assert len(chunks) > 1
    for a, b in itertools.pairwise(chunks):
        # The newline at a cut belongs to neither part, so the overlap is one byte short.
        assert 199 <= a.end_byte - b.start_byte <= (a.end_byte - a.start_byte) // 2


def test_a_section_of_exactly_the_cap_is_one_chunk():
    head = "# Cap\n\n"
    words = ("word " * MAX_CHUNK_BYTES)[: MAX_CHUNK_BYTES - len(head) - 1] + "x"
    chunks = chunk_markdown(head + words + "\n")
    assert [len(c.text.encode()) for c in chunks] == [MAX_CHUNK_BYTES]
    assert len(chunk_markdown(head + words + "y\n")) == 2


def test_a_long_section_is_cut_late_rather_than_at_an_early_blank_line():
    lines = "\n".join(f"line {i} " + "word " * 10 for i in range(120))
    text = "# Big\n\nA short opening.\n\n" + lines + "\n"
    first = chunk_markdown(text)[0]
    assert MAX_CHUNK_BYTES // 2 < len(first.text.encode()) <= MAX_CHUNK_BYTES


def test_a_thematic_break_is_not_the_end_of_front_matter():
    chunks = chunk_markdown("Opening words.\n\n---\n\nAfter the rule.\n", "Page")
    assert chunks[0].text.startswith("Opening words.")


def test_front_matter_that_is_empty_or_never_closed():
    empty = chunk_markdown("---\n---\nBody.\n\n---\n\nMore.\n", "Page")
    assert empty[0].text.startswith("Body.")
    unclosed = chunk_markdown("---\ntitle: Nowhere\n\nBody.\n", "Page")
    assert unclosed[0].heading == "Page"
    assert unclosed[0].text.startswith("---\ntitle: Nowhere")


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(alphabet="ab é€\n", max_size=6000),
            st.integers(1, 900).map(lambda n: "```\n" + "code\n" * n + "```"),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_a_long_section_is_cut_without_losing_a_byte(pieces):
    heading = "# Long\n\n"
    text = heading + "\n".join(pieces) + "\n"
    raw = text.encode()
    chunks = chunk_markdown(text)
    if not any(ch.isalnum() for ch in "".join(pieces)):
        assert chunks == []  # a heading with no words under it is no passage
        return
    covered = bytearray(len(raw))
    for chunk in chunks:
        assert raw[chunk.start_byte : chunk.end_byte].decode() == chunk.text
        covered[chunk.start_byte : chunk.end_byte] = b"\x01" * (chunk.end_byte - chunk.start_byte)
    body = range(len(heading), len(raw))
    lost = [i for i in body if not covered[i] and raw[i] not in b" \n"]
    assert not lost, raw[lost[0] : lost[0] + 40]


def test_title_from_path():
    assert title_from_path("docs/v2/examples/exit-codes.md") == "Exit codes"
    assert title_from_path("docs/guide/index.md") == "Guide"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("#=-`~ \n\tabc_é{}:*>[]()1."))))
def test_chunks_always_match_the_bytes_they_claim(text):
    normalised = text.replace("\r\n", "\n").replace("\r", "\n")
    raw = normalised.encode()
    lines = normalised.split("\n")
    for chunk in chunk_markdown(text):
        assert raw[chunk.start_byte : chunk.end_byte].decode() == chunk.text
        assert 1 <= chunk.start_line <= chunk.end_line <= len(lines)


_PAGE_LINES = [
    "# Title",
    "## Part",
    "### Sub",
    "Words here.",
    "",
    "![banner](banner.png)",
    "[![](badge.svg)](https://ci.example)",
    "<!-- omit in TOC -->",
    '<p align="center">',
    "</p>",
    "---",
    "```",
    "[Setup](setup.md)",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PAGE_LINES), max_size=14))
def test_every_character_of_a_page_with_text_is_in_a_passage(page_lines):
    text = "\n".join(page_lines) + "\n"
    raw = text.encode()
    chunks = chunk_markdown(text)
    if text.startswith("---") or not chunks:
        return  # front matter is never a passage; a page with no words is none
    covered = bytearray(len(raw))
    for chunk in chunks:
        assert raw[chunk.start_byte : chunk.end_byte].decode() == chunk.text
        covered[chunk.start_byte : chunk.end_byte] = b"\x01" * (chunk.end_byte - chunk.start_byte)
    lost = [i for i in range(len(raw)) if not covered[i] and raw[i] not in b" \n"]
    assert not lost, raw[lost[0] : lost[0] + 40]
