"""Characters that change what is read without being seen, and the escapes shown for them (pure).

Untrusted text (passages, names, answers, errors) reaches the terminal, the log and Discord.
Control characters can drive a terminal; the direction marks, embeddings, overrides and
isolates can make a line read differently from what it says (the "Trojan Source" trick); and
invisible formatting can carry hidden text (word joiners, tag characters, interlinear
annotations). Every output writes each of them out as an escape, from this one list.

Tag characters also spell out a subdivision flag after a black flag, an emoji that stays as it
is; the joiner of other emoji sequences (U+200D) and the zero-width non-joiner that scripts
need (U+200C) are not on the list.
"""

from __future__ import annotations

import re

# Newline and tab are not on the list: they lay text out, and every output shows them plainly.
UNSEEN_CLASS = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2060-\u2064"
    "\u2066-\u206f\ufeff\ufff9-\ufffb\U000e0000-\U000e007f"
)
_SUBDIVISION_FLAG = "\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f"
_UNSEEN = re.compile(rf"{_SUBDIVISION_FLAG}|\r\n|[{UNSEEN_CLASS}]")


def escaped(char: str) -> str:
    r"""One character written out as Python writes it: ``\x1b``, ``\u202e``, ``\U000e0041``."""
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _shown(match: re.Match[str]) -> str:
    found = match[0]
    if found == "\r\n":
        return "\n"
    if len(found) > 1:  # a subdivision flag, shown as the emoji it is
        return found
    return escaped(found)


def visible(text: str) -> str:
    r"""``text`` with every character that would act unseen shown as an escape instead.

    A reader sees that such a character (``\u202e``, ``\x1b``) is there and reads the text in
    the order it is stored. Newline and tab stay, a CRLF line end is just a line end, and all
    other text (accents, scripts, emoji) is left as it is.
    """
    return _UNSEEN.sub(_shown, text)
