"""A Discord message as plain data, and the tools that keep one within Discord's limits.

A ``Reply`` refuses to exist if it breaks a limit, so a formatting mistake shows up as a
failing test here rather than as a message Discord rejects in front of a user. Lengths are
counted as Discord counts them: in UTF-16 code units, so an emoji costs two.

Everything that goes into a reply from the index or from a model is untrusted text; the
helpers here escape it so that a heading cannot turn into a link, a mention or a code block.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from bot.unseen import UNSEEN_CLASS, visible

CONTENT_LIMIT = 2000
EMBED_TITLE_LIMIT = 256
EMBED_DESCRIPTION_LIMIT = 4096
EMBED_FOOTER_LIMIT = 2048
EMBEDS_LIMIT = 10
EMBEDS_TOTAL_LIMIT = 6000  # title, description and footer of every embed together
BUTTON_LABEL_LIMIT = 80
CUSTOM_ID_LIMIT = 100
BUTTONS_PER_ROW = 5

ButtonStyle = Literal["primary", "secondary", "success", "danger"]


def discord_len(text: str) -> int:
    """The length of ``text`` as Discord measures it (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


@dataclass(frozen=True, slots=True)
class Embed:
    """One embed: a title (optionally a link), a Markdown description and a footer."""

    description: str
    title: str = ""
    url: str = ""
    footer: str = ""

    def size(self) -> int:
        """The characters this embed counts towards the message's total."""
        return discord_len(self.title) + discord_len(self.description) + discord_len(self.footer)


@dataclass(frozen=True, slots=True)
class Button:
    """A button whose presses arrive as interactions carrying ``custom_id``."""

    custom_id: str
    label: str
    style: ButtonStyle = "secondary"
    disabled: bool = False


@dataclass(frozen=True, slots=True)
class Reply:
    """A message to show: content, embeds and one row of buttons.

    Raises:
        ValueError: on construction, when any Discord limit is broken.
    """

    content: str = ""
    embeds: tuple[Embed, ...] = ()
    buttons: tuple[Button, ...] = ()
    ephemeral: bool = False

    def __post_init__(self) -> None:
        problems = list(_problems(self))
        if problems:
            raise ValueError("reply breaks Discord's limits: " + "; ".join(problems))


def _problems(reply: Reply) -> list[str]:
    out = []
    if not reply.content and not reply.embeds:
        out.append("nothing to show")
    if discord_len(reply.content) > CONTENT_LIMIT:
        out.append(f"content of {discord_len(reply.content)} characters")
    if len(reply.embeds) > EMBEDS_LIMIT:
        out.append(f"{len(reply.embeds)} embeds")
    for e in reply.embeds:
        if discord_len(e.title) > EMBED_TITLE_LIMIT:
            out.append(f"embed title of {discord_len(e.title)} characters")
        if discord_len(e.description) > EMBED_DESCRIPTION_LIMIT:
            out.append(f"embed description of {discord_len(e.description)} characters")
        if discord_len(e.footer) > EMBED_FOOTER_LIMIT:
            out.append(f"embed footer of {discord_len(e.footer)} characters")
    total = sum(e.size() for e in reply.embeds)
    if total > EMBEDS_TOTAL_LIMIT:
        out.append(f"embeds of {total} characters together")
    if len(reply.buttons) > BUTTONS_PER_ROW:
        out.append(f"{len(reply.buttons)} buttons in one row")
    for b in reply.buttons:
        if not (0 < len(b.custom_id) <= CUSTOM_ID_LIMIT and 0 < len(b.label) <= BUTTON_LABEL_LIMIT):
            out.append(f"button {b.custom_id!r}")
    return out


# ---------------------------------------------------------------------------------------------
# Untrusted text

_MARKDOWN = re.compile(r"([\\*_~`|\[\]()<>#:-])")
_MENTION = re.compile(r"@(?=everyone|here)|(?<=<)@")


def escape_markdown(text: str) -> str:
    """``text`` shown literally: no emphasis, links, code, headings, masked links or mentions.

    Mentions never ping (every message is sent with allowed mentions set to none); breaking
    them with a zero-width space also keeps them from *looking* like a ping.
    """
    # Line breaks and other spacing become one space first, so only what would act unseen is
    # written out as an escape.
    flat = visible(" ".join(text.split()))
    return _MENTION.sub("@\u200b", _MARKDOWN.sub(r"\\\1", flat))


def defuse_mentions(markdown: str) -> str:
    """Markdown left as it is, but for mentions, broken so none renders as one.

    Characters that would act unseen are shown as escapes (``visible``) first.
    """
    return _MENTION.sub("@\u200b", visible(markdown))


def safe_url(url: str) -> str:
    """A URL that cannot end a Markdown link early, or ``""`` if it is not http(s).

    Characters that would act unseen are percent-encoded, as spaces and brackets are.
    """
    if not re.match(r"https?://", url):
        return ""
    return re.sub(
        rf"[\s()<>{UNSEEN_CLASS}]",
        lambda m: "".join(f"%{b:02X}" for b in m.group().encode()),
        url,
    )


def link(label: str, url: str) -> str:
    """A Markdown link with an escaped label; just the label when the URL is unusable."""
    target = safe_url(url)
    text = escape_markdown(label)
    return f"[{text}]({target})" if target else text


def shorten(text: str, limit: int, *, marker: str = "…") -> str:
    """``text`` cut to ``limit`` characters at a word boundary, with ``marker`` if cut."""
    if discord_len(text) <= limit:
        return text
    room = limit - discord_len(marker)
    cut = text[:room]
    while discord_len(cut) > room:  # surrogate pairs count twice
        cut = cut[:-1]
    space = cut.rfind(" ")
    if space > room // 2:
        cut = cut[:space]
    return cut.rstrip() + marker


def escaped_within(text: str, limit: int) -> str:
    """``text`` escaped as ``escape_markdown`` does, in at most ``limit`` characters.

    ``limit`` must leave room for the longest escape of one character (see ``shown_within``).
    """
    return shown_within(text, limit, escape_markdown)


def visible_within(text: str, limit: int) -> str:
    """``text`` with unseen characters written out (``visible``), in at most ``limit``."""
    return shown_within(text, limit, visible)


def shown_within(
    text: str,
    limit: int,
    show: Callable[[str], str],
    cut: Callable[[str, int], str] = shorten,
) -> str:
    r"""``show(text)`` in at most ``limit`` characters, the text shortened before it is shown.

    Never shortened after: a cut in shown text can split an escape (``\u202e`` left as
    ``\u20…``), or the markup wrapped around it. Showing can make text many times longer, so
    the longest cut that still fits is searched for. ``limit`` must leave room for the longest
    way ``show`` writes one character. ``cut`` shortens the text (``shorten`` unless given).
    """
    whole = show(text)
    if discord_len(whole) <= limit:
        return whole
    fits, over = 1, limit + 1  # the shortest cut, just the marker or the note, is taken to fit
    while over - fits > 1:
        mid = (fits + over) // 2
        if discord_len(show(cut(text, mid))) <= limit:
            fits = mid
        else:
            over = mid
    return show(cut(text, fits))


def fit_lines(
    lines: Sequence[str], budget: int, more: Callable[[int], str], sep: str = "\n"
) -> tuple[str, int]:
    """Join whole ``lines`` with ``sep`` while they fit in ``budget``; never cut one.

    When some do not fit, ``more(n)`` (saying ``n`` were left out) is added and room is kept
    for it. Returns the text and how many lines were left out.
    """
    gap = discord_len(sep)
    total = sum(discord_len(line) + gap for line in lines) - gap
    if total <= budget:
        return sep.join(lines), 0
    kept: list[str] = []
    used = 0
    for i, line in enumerate(lines):
        cost = discord_len(line) + (gap if kept else 0)
        left_out = len(lines) - i
        tail = discord_len(more(left_out)) + gap
        if used + cost + tail > budget:
            break
        kept.append(line)
        used += cost
    dropped = len(lines) - len(kept)
    return sep.join([*kept, more(dropped)]), dropped


_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def markdown_within(text: str, limit: int, note: str) -> str:
    """Untrusted Markdown with mentions defused (``defuse_mentions``), in at most ``limit``.

    Cut as ``shorten_markdown`` cuts, before unseen characters are written out as escapes.
    """
    return shown_within(
        text, limit, defuse_mentions, lambda markdown, room: shorten_markdown(markdown, room, note)
    )


def shorten_markdown(text: str, limit: int, note: str) -> str:
    """Markdown cut to ``limit`` at a paragraph, line or sentence end, then ``note``.

    A code block left open by the cut is closed, so the rest of the message renders as it
    should.
    """
    if discord_len(text) <= limit:
        return text
    room = limit - discord_len(note) - 2  # the note's blank line
    while True:
        head = _cut(text, room)
        fence = _open_fence(head)
        shown = f"{head}\n{fence}\n\n{note}" if fence else f"{head}\n\n{note}"
        over = discord_len(shown) - limit
        if over <= 0 or not head:
            return shown
        # The closing fence repeats the opening one, which may be any length, so the cut
        # makes room for the fence it actually needs, and cuts again.
        room -= over


def _cut(text: str, room: int) -> str:
    """At most ``room`` characters of ``text``, ending at a paragraph, line or sentence end."""
    head = text[: max(room, 0)]
    while head and discord_len(head) > room:
        head = head[:-1]
    for boundary in ("\n\n", "\n", ". "):
        at = head.rfind(boundary)
        if at > room // 2:
            head = head[: at + (1 if boundary == ". " else 0)]
            break
    return head.rstrip()


def _open_fence(markdown: str) -> str:
    """The fence that would close a code block left open at the end, or ``""``."""
    open_with = ""
    for line in markdown.splitlines():
        m = _FENCE_LINE.match(line)
        if not m:
            continue
        if not open_with:
            open_with = m.group(1)
        elif m.group(1)[0] == open_with[0] and len(m.group(1)) >= len(open_with):
            open_with = ""
    return open_with
