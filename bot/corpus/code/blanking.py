"""A Python file's bytes as text to blank, and back, width for width (pure).

The passes that blank newer syntax for the parser this runs on (``fstrings``,
``type_syntax``) keep every byte offset: a character blanked becomes as many spaces as it
took bytes. Both read the file as Python does (its declared encoding, a comment that is not
valid in it included) and measure a character's width in the encoding the bytes are in.
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Callable


def blanked(data: bytes, blank: Callable[[str, str], str | None]) -> bytes | None:
    """``data`` decoded, passed to ``blank`` and encoded again; ``None`` if ``blank`` gave none.

    ``blank`` gets the text and the encoding to measure widths in, and returns the text of the
    same widths, or ``None`` when it has nothing to blank. ``None`` as well when the text
    cannot be read or written back: the parser's own error then stands.
    """
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        # Python reads a comment that is not valid UTF-8, even on the first two lines, which
        # ``tokenize`` refuses to; without a declaration, the encoding is UTF-8 all the same.
        encoding = "utf-8"
    try:
        # Python reads a comment that is not valid in the file's encoding; so must this.
        text = data.decode(encoding, "surrogateescape")
        # A character's width is its bytes in UTF-8 when the file opens with a byte-order mark,
        # not those plus the mark that encoding ``utf-8-sig`` puts before anything.
        out = blank(text, "utf-8" if encoding == "utf-8-sig" else encoding)
        return None if out is None else out.encode(encoding, "surrogateescape")
    except (SyntaxError, UnicodeError, LookupError):
        return None


def width(text: str, encoding: str) -> int:
    """How many bytes ``text`` takes in ``encoding``, a comment's undecodable bytes included."""
    return len(text.encode(encoding, "surrogateescape"))
