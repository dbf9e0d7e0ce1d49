import itertools

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


def test_headings_inside_fences_are_not_sections():
    chunks = chunk_markdown("# A\n\n```sh\n# comment\n```\n")
    assert [c.heading for c in chunks] == ["A"]


def test_heading_text_keeps_inline_markup_and_drops_attribute_lists():
    chunks = _by_heading("# Page\n\nx\n\n## `urfave_cli_no_docs` build tag {#tag}\n\ny\n")
    chunk = chunks["`urfave_cli_no_docs` build tag"]
    assert chunk.anchor == "tag"


def test_anchors_repeat_with_a_counter():
    chunks = chunk_markdown("# P\n\nx\n\n## Usage\n\na\n\n## Usage\n\nb\n")
    assert [c.anchor for c in chunks] == ["p", "usage", "usage_1"]


def test_inline_markup_is_removed_from_anchors():
    chunks = chunk_markdown("# P\n\nx\n\n## Use **bold** [link](u) & `code`!\n\ny\n")
    assert chunks[1].anchor == "use-bold-link-code"


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
        assert a.end_byte - b.start_byte >= 200


def test_long_sections_never_cut_inside_a_fence():
    fence = "```go\n" + "x := 1\n" * 300 + "```"
    text = "# F\n\n" + ("prose " * 100 + "\n\n") * 5 + fence + "\n\nafter\n"
    for chunk in chunk_markdown(text):
        assert chunk.text.count("```") % 2 == 0


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
