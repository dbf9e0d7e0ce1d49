"""Markdown into heading sections: the chunk boundary is also the citation anchor.

Rules (indexing reference, "How markdown is cut"):

- one chunk per heading section, carrying its heading path of headings as a reader sees
  them (link text without its address, no images or tags); the page title (front matter
  ``title``, else the first H1, else a title made from the file name) heads the path, and
  text before the first heading belongs to a chunk headed by that title;
- a heading with nothing under it is merged into the chunk before it (or, when nothing
  comes before, into the chunk after), since on its own it would match and say nothing;
  images, HTML comments and tags are not text, so a banner or a row of badges alone is
  nothing, and a preamble of them joins the first section;
- a section over ``MAX_CHUNK_BYTES`` is split into parts overlapping by ``OVERLAP_BYTES``,
  preferring a blank-line boundary in the second half of the window, then a line boundary
  there, then the byte limit, and never cutting inside a fenced code block; no part is the
  heading alone;
- front matter is never part of a chunk.

The document structure comes from markdown-it (CommonMark), so setext headings, fences and
indented code are recognised as a real parser sees them.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token

from bot.corpus.anchors import slugify, unique
from bot.corpus.chunk import Chunk
from bot.corpus.identifiers import search_terms
from bot.corpus.linklists import ranking_weight

MAX_CHUNK_BYTES = 4000
OVERLAP_BYTES = 200

_FRONT_MATTER_END = re.compile(r"^(---|\.\.\.)[ \t]*$")
# Python-Markdown's attr_list on a heading: at least one space, then "{: #id .class k=v }".
_ATTR_LIST = re.compile(r"[ \t]+\{:?[ \t]*([^}\n ][^}\n]*?)[ \t]*\}[ \t]*$")
_ATTR_ID = re.compile(r"(?:^|\s)#([^\s}]+)")
_HAS_WORD = re.compile(r"[^\W_]")
# What a reader never sees as text: images (a banner, badges), then links left with nothing to
# show, HTML comments and tags. A section holding only these says nothing.
_NOT_TEXT = (
    re.compile(r"<!--.*?-->", re.DOTALL),
    re.compile(r"!\[[^\]]*\](?:\([^)]*\)|\[[^\]]*\])"),
    re.compile(r"\[\s*\](?:\([^)]*\)|\[[^\]]*\])"),
    re.compile(r"</?[A-Za-z][^>]*>"),
)
# An emoji or icon shortcode standing as a word of its own (":warning: Arrays"): the site's
# emoji extension (on by default in zensical) shows it as an icon, which has no text. Inside a
# word ("10:30:00") it is kept, since only the site's list of emoji could tell it from text.
_SHORTCODE = re.compile(r"(?<!\S):[+\-\w]+:(?!\S)")
_HEADING_TOKEN = "heading_open"  # noqa: S105 - a token type, not a secret


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    # Only the block structure is needed; inline markup is parsed for headings alone.
    return MarkdownIt("commonmark").disable("inline")


@lru_cache(maxsize=1)
def _inline_parser() -> MarkdownIt:
    return MarkdownIt("commonmark")


@dataclass(frozen=True, slots=True)
class _Heading:
    line: int  # 0-based index of the heading's first line
    end: int  # 0-based index one past its last line (setext headings span two)
    level: int
    text: str  # as written, attribute list removed
    anchor: str
    top_level: bool


@dataclass(slots=True)
class _Section:
    start: int  # 0-based first line
    body: int  # 0-based first line under the heading (== start for the preamble)
    end: int  # 0-based one past the last line
    heading: str
    path: tuple[str, ...]
    anchor: str


def chunk_markdown(text: str, fallback_title: str = "") -> list[Chunk]:
    """Cut one markdown document into chunks.

    Args:
        text: the document, already decoded; a leading byte-order mark is dropped.
        fallback_title: the page title to use when the page has neither a front matter
            ``title`` nor an H1 (usually made from the file name by ``title_from_path``).

    Returns:
        The chunks in document order; an empty list for a document with no words.
    """
    # A byte-order mark is an encoding signature, not text: left in, it hides the front
    # matter's opening "---" and the first "#" heading from the parser.
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    front_title, body_start = _front_matter(lines)
    parse_lines = [""] * body_start + lines[body_start:]
    # The parse gathers the page's link reference definitions, which a heading's
    # "[text][ref]" needs to be read as a link.
    env: dict[str, object] = {}
    tokens = _parser().parse("\n".join(parse_lines), env)
    headings = _headings(tokens, env)
    fences = _fence_ranges(tokens)

    title = front_title or next((h.text for h in headings if h.level == 1), "") or fallback_title
    sections = _sections(lines, body_start, [h for h in headings if h.top_level], title)
    sections = _merge_empty(sections, lines)

    offsets = _line_offsets(lines)
    chunks: list[Chunk] = []
    for section in sections:
        chunks.extend(_split(section, lines, offsets, fences))
    return chunks


def title_from_path(path: str) -> str:
    """Make a page title from a file name as MkDocs does: ``exit-codes.md`` -> ``Exit codes``."""
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    if stem.lower() in ("index", "readme") and "/" in path:
        stem = path.rsplit("/", 2)[-2]
    words = re.sub(r"[-_]+", " ", stem).strip()
    return words[:1].upper() + words[1:]


def _front_matter(lines: Sequence[str]) -> tuple[str, int]:
    """Return the front matter ``title`` (or "") and the index of the first line after it."""
    if not lines or lines[0].rstrip() != "---":
        return "", 0
    for i in range(1, len(lines)):
        if _FRONT_MATTER_END.match(lines[i]):
            try:
                data = yaml.safe_load("\n".join(lines[1:i]))
            except yaml.YAMLError:
                data = None
            title = data.get("title") if isinstance(data, dict) else None
            return (str(title).strip() if isinstance(title, str | int | float) else ""), i + 1
    return "", 0


def _headings(tokens: Sequence[Token], env: dict[str, object]) -> list[_Heading]:
    """Every heading in document order, with its anchor computed as the site computes it."""
    raw: list[tuple[Token, str, str | None]] = []
    explicit: set[str] = set()
    for i, token in enumerate(tokens):
        if token.type != _HEADING_TOKEN or token.map is None:
            continue
        inline = tokens[i + 1]
        content = inline.content.replace("\n", " ")
        attr = _ATTR_LIST.search(content)
        explicit_id = None
        if attr:
            id_match = _ATTR_ID.search(attr.group(1))
            explicit_id = id_match.group(1) if id_match else None
            content = content[: attr.start()]
            if explicit_id:
                explicit.add(explicit_id)
        raw.append((token, content.strip(), explicit_id))

    used = set(explicit)
    headings = []
    for token, content, explicit_id in raw:
        parsed = _inline_parser().parseInline(content, env)
        children = parsed[0].children if parsed and parsed[0].children else []
        anchor = explicit_id or unique(slugify(_plain_text(children)), used)
        assert token.map is not None
        headings.append(
            _Heading(
                line=token.map[0],
                end=token.map[1],
                level=int(token.tag[1]),
                text=_shown_text(children) or content,
                anchor=anchor,
                top_level=token.level == 0,
            )
        )
    return headings


def _plain_text(children: Sequence[Token]) -> str:
    """The heading's text as rendered, tags stripped: what the site slugifies."""
    parts = []
    for child in children:
        if child.type == "text":
            parts.append(_SHORTCODE.sub("", child.content))
        elif child.type == "code_inline":
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            continue  # rendered as <img>, which has no text once tags are stripped
    return " ".join("".join(parts).split())


def _shown_text(children: Sequence[Token]) -> str:
    """The heading as a reader sees it, for its path; one of images alone by their alt text.

    A link shows its text without its address; images (a title's badges) and HTML tags show
    nothing; code and emphasis are kept as written.
    """
    parts = []
    alts = []
    for child in children:
        if child.type == "text":
            parts.append(child.content)
        elif child.type == "code_inline":
            parts.append(child.markup + child.content + child.markup)
        elif child.type in ("em_open", "em_close", "strong_open", "strong_close"):
            parts.append(child.markup)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            alts.append(child.content)
    shown = " ".join("".join(parts).split())
    return shown if _HAS_WORD.search(shown) else " ".join(" ".join(alts).split())


def _fence_ranges(tokens: Sequence[Token]) -> list[tuple[int, int]]:
    """0-based [start, end) line ranges of fenced and indented code blocks."""
    return [(t.map[0], t.map[1]) for t in tokens if t.type in ("fence", "code_block") and t.map]


def _sections(
    lines: Sequence[str], body_start: int, headings: Sequence[_Heading], title: str
) -> list[_Section]:
    sections: list[_Section] = []
    first = headings[0].line if headings else len(lines)
    # A preamble with no text (a banner) still goes in, to be merged into what follows it.
    if any(line.strip() for line in lines[body_start:first]):
        path: tuple[str, ...] = (title,) if title else ()
        sections.append(_Section(body_start, body_start, first, title, path, ""))

    stack: list[_Heading] = []
    for i, heading in enumerate(headings):
        while stack and stack[-1].level >= heading.level:
            stack.pop()
        stack.append(heading)
        path = tuple(h.text for h in stack)
        if title and path[0] != title:
            path = (title, *path)
        end = headings[i + 1].line if i + 1 < len(headings) else len(lines)
        sections.append(
            _Section(heading.line, heading.end, end, heading.text, path, heading.anchor)
        )
    return sections


def _merge_empty(sections: list[_Section], lines: Sequence[str]) -> list[_Section]:
    """Fold sections with no words under their heading into a neighbour."""
    merged: list[_Section] = []
    carried: int | None = None  # first line of empty sections waiting for a following one
    for section in sections:
        if not _has_text(lines[section.body : section.end]):
            if merged:
                merged[-1].end = section.end
            elif carried is None:
                carried = section.start
            continue
        if carried is not None:
            section.start = carried
            carried = None
        merged.append(section)
    return merged


def _has_text(lines: Sequence[str]) -> bool:
    text = "\n".join(lines)
    for pattern in _NOT_TEXT:
        text = pattern.sub("", text)
    return _HAS_WORD.search(text) is not None


def _line_offsets(lines: Sequence[str]) -> list[int]:
    """Byte offset of the start of every line, plus the end of the document."""
    offsets = [0]
    total = 0
    for line in lines:
        total += len(line.encode("utf-8")) + 1
        offsets.append(total)
    offsets[-1] -= 1  # the last line has no newline after it
    return offsets


def _split(
    section: _Section,
    lines: Sequence[str],
    offsets: Sequence[int],
    fences: Sequence[tuple[int, int]],
) -> list[Chunk]:
    """Cut one section into chunks of at most ``MAX_CHUNK_BYTES`` where it can be done."""
    start_line, end_line = section.start, section.end
    # Blank lines around a section are not part of its text.
    while start_line < end_line - 1 and not lines[start_line].strip():
        start_line += 1
    while end_line > start_line + 1 and not lines[end_line - 1].strip():
        end_line -= 1
    begin = offsets[start_line]
    finish = offsets[end_line] - (1 if end_line < len(lines) else 0)
    raw = "\n".join(lines[start_line:end_line]).encode("utf-8")
    assert len(raw) == finish - begin

    def make(lo: int, hi: int) -> Chunk:
        body = raw[lo - begin : hi - begin].decode("utf-8")
        first = bisect.bisect_right(offsets, lo) - 1
        last = bisect.bisect_right(offsets, max(lo, hi - 1)) - 1
        return Chunk(
            heading=section.heading,
            heading_path=section.path,
            text=body,
            start_line=first + 1,
            end_line=last + 1,
            start_byte=lo,
            end_byte=hi,
            anchor=section.anchor,
            terms=search_terms(" ".join(section.path), body),
            weight=ranking_weight(body),
        )

    if finish - begin <= MAX_CHUNK_BYTES:
        return [make(begin, finish)]

    fence_bytes = [
        (offsets[a], offsets[b] - 1 if b < len(offsets) else offsets[-1])
        for a, b in fences
        if a < end_line and b > start_line
    ]

    def inside_fence(pos: int) -> tuple[int, int] | None:
        for lo, hi in fence_bytes:
            if lo < pos < hi:
                return lo, hi
        return None

    # Where the heading's own text begins: a part that ends before any word of it would be
    # the heading alone, a passage that matches on its title and then says nothing.
    body_at = offsets[max(section.body, start_line)]

    def says_something(lo: int, cut: int) -> bool:
        return _HAS_WORD.search(raw[max(lo, body_at) - begin : cut - begin].decode()) is not None

    line_starts = [offsets[i] for i in range(start_line + 1, end_line)]
    # Cutting at the start of a blank line leaves the blank line out of both parts' text.
    blank_starts = [offsets[i] for i in range(start_line + 1, end_line) if not lines[i].strip()]

    parts: list[Chunk] = []
    lo = begin
    while True:
        if finish - lo <= MAX_CHUNK_BYTES:
            parts.append(make(lo, finish))
            return parts
        limit = lo + MAX_CHUNK_BYTES
        cut = _best_cut(lo, limit, blank_starts, line_starts, inside_fence)
        if cut is None:
            cut = _char_boundary(raw, begin, limit)
            fence = inside_fence(cut)
            if fence is not None:
                # Keep a fenced block whole: end before it, or after it when nothing of the
                # section's own text comes before it in this part.
                ahead = fence[0] > lo and says_something(lo, fence[0])
                cut = fence[0] if ahead else _after(fence[1], finish, raw, begin)
        end = cut
        # Newlines before a line-boundary cut (blank lines included) belong to neither part.
        text_end = end
        while text_end > lo + 1 and raw[text_end - 1 - begin] == 0x0A:
            text_end -= 1
        parts.append(make(lo, text_end))
        if cut >= finish:
            return parts
        nxt = _overlap_start(lo, cut, line_starts, raw, begin)
        if inside_fence(nxt) is not None:
            nxt = cut
        lo = nxt


def _after(fence_end: int, finish: int, raw: bytes, begin: int) -> int:
    """The first byte after a fence's closing line."""
    pos = fence_end
    while pos < finish and raw[pos - begin] != 0x0A:
        pos += 1
    return min(pos + 1, finish)


def _best_cut(
    lo: int,
    limit: int,
    blank_starts: Sequence[int],
    line_starts: Sequence[int],
    inside_fence: object,
) -> int | None:
    """A blank-line boundary in the window's second half, else a line boundary there.

    Never one in the first half: the part before it would be a scrap (the heading alone, when
    a long line follows it), and the next part could not repeat the promised overlap. Cutting
    at the byte limit is better than either.
    """
    assert callable(inside_fence)
    half = lo + (limit - lo) // 2
    for candidates in (blank_starts, line_starts):
        i = bisect.bisect_right(candidates, limit) - 1
        while i >= 0 and candidates[i] > half:
            if inside_fence(candidates[i]) is None:
                return candidates[i]
            i -= 1
    return None


def _overlap_start(lo: int, cut: int, line_starts: Sequence[int], raw: bytes, begin: int) -> int:
    """Where the next part starts.

    At least ``OVERLAP_BYTES`` before the cut, on the nearest line start, and always after
    the previous part's start so the split makes progress. When that line start lies in the
    part's first half (a long line precedes the cut), the part would be mostly repeated, so
    the next one starts inside the long line instead.
    """
    target = cut - OVERLAP_BYTES
    i = bisect.bisect_right(line_starts, target) - 1
    if i >= 0 and line_starts[i] > lo + (cut - lo) // 2:
        return line_starts[i]
    return max(_char_boundary(raw, begin, target), lo + 1) if target > lo else cut


def _char_boundary(raw: bytes, begin: int, pos: int) -> int:
    """Move ``pos`` back to the start of a UTF-8 character."""
    while pos > begin and pos - begin < len(raw) and (raw[pos - begin] & 0xC0) == 0x80:
        pos -= 1
    return pos
