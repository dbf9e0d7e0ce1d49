"""Python 3.12's f-strings, blanked out so that an older parser can read the rest (pure).

Since Python 3.12 (PEP 701) a replacement field is ordinary code: ``f"{d["key"]}"`` reuses
the string's own quote, a field may hold backslashes and comments, and a field in a
single-quoted f-string may run over several lines. The Python this runs on reads all of
that as a syntax error, and ``ast`` gives up on the whole file at the first one.

What an f-string says inside is never part of a declaration's outline, so each one is kept
as an f-string with an empty body: ``f"{d["key"]}"`` becomes ``f"          "``. Each
character blanked becomes as many spaces as it took bytes and no line end moves, so every
declaration parses on the lines and at the byte offsets of the original, and the passages
are then cut from the original bytes. It stays an f-string, not a plain string, so that an
f-string standing first in a body is still not read as that body's docstring. A line end
inside a single-quoted f-string gets a backslash just before it, which continues a string
literal onto the next line in every Python version.

``tokenize`` cannot find where such an f-string ends (it is the old tokenizer that fails),
hence the small scanner below: it reads code, strings and comments, and inside an f-string
its literal text, its replacement fields (code again, in brackets) and their format specs.
"""

from __future__ import annotations

import re

from bot.corpus.code.blanking import blanked, width

# String prefixes, lower-cased; ``u`` cannot combine with any other letter.
_PREFIXES = frozenset({"", "r", "u", "b", "br", "rb", "f", "fr", "rf"})
_OPENING = "([{"
_CLOSING = ")]}"
_LINE_ENDS = "\r\n"
_LINE_END = re.compile("[\r\n]")


class _Malformed(Exception):
    """The text is not Python the scanner can read (an unterminated string, an open field)."""


def without_fstrings(data: bytes) -> bytes | None:
    """``data`` with the body of every f-string blanked; ``None`` if it has none.

    ``None`` as well when the file cannot be scanned (an unterminated string or field, an
    unknown encoding, a line inside a single-quoted f-string with nothing on it to carry the
    backslash): there is nothing to rewrite with confidence then, and the parser's own error
    stands.
    """
    return blanked(data, blank_fstrings)


def blank_fstrings(text: str, encoding: str = "utf-8") -> str | None:
    """``text`` with the body of every f-string blanked, or ``None`` if it has none.

    Every line keeps its byte length in ``encoding`` and its line end. Nested f-strings go
    with the one around them.

    Raises:
        SyntaxError: the text cannot be scanned as Python (the message says where).
    """
    scanner = _Scanner(text)
    out: list[str] = []
    done = 0
    try:
        scanner.code(0, in_field=False)
        for start, end, single_quoted in scanner.bodies:
            out.append(text[done:start])
            out.append(_blank(text[start:end], encoding, single_quoted))
            done = end
    except (_Malformed, RecursionError) as exc:
        raise SyntaxError(f"cannot blank f-strings: {exc}") from None
    if not scanner.bodies:
        return None
    out.append(text[done:])
    return "".join(out)


def _blank(body: str, encoding: str, single_quoted: bool) -> str:
    """Spaces for every byte of ``body``; its line ends kept, after a backslash if single-quoted.

    Raises:
        _Malformed: a line of a single-quoted body has nothing on it to carry the backslash.
    """
    out = []
    for i, char in enumerate(body):
        if char in _LINE_ENDS:
            if single_quoted and _starts_empty_line(body, i):
                raise _Malformed("an empty line inside a single-quoted f-string")
            out.append(char)
            continue
        filler = " " * width(char, encoding)
        if single_quoted and i + 1 < len(body) and body[i + 1] in _LINE_ENDS:
            filler = filler[:-1] + "\\"
        out.append(filler)
    return "".join(out)


def _starts_empty_line(body: str, at: int) -> bool:
    """Whether the line end at ``at`` ends a line with nothing on it.

    The line feed of a CRLF belongs to the carriage return before it.
    """
    if body[at] == "\n" and at > 0 and body[at - 1] == "\r":
        return False
    return at == 0 or body[at - 1] in _LINE_ENDS


class _Scanner:
    """Walks Python text once, noting where each outermost f-string's body lies.

    Every method takes the index to start at; each says which index it returns.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        # (start, end, single-quoted) of each outermost f-string's body, in order.
        self.bodies: list[tuple[int, int, bool]] = []
        self._fstring_depth = 0

    def code(self, at: int, *, in_field: bool) -> int:
        """Code up to the end of the text, or up to where a replacement field's code ends.

        ``in_field``, the index returned is that of the ``}`` or format spec ``:`` ending it.
        """
        text, depth = self.text, 0
        while at < len(text):
            char = text[at]
            if char == "#":
                at = _line_end(text, at)
            elif char in "\"'":
                at = self.string(at, "")
            elif char.isalnum() or char == "_":
                start = at
                while at < len(text) and (text[at].isalnum() or text[at] == "_"):
                    at += 1
                prefix = text[start:at].lower()
                if at < len(text) and text[at] in "\"'" and prefix in _PREFIXES:
                    at = self.string(at, prefix)
            elif in_field and depth == 0 and char in "}:":
                return at
            else:
                if char in _OPENING:
                    depth += 1
                elif char in _CLOSING:
                    depth -= 1
                at += 1
        if in_field:
            raise _Malformed("a replacement field is not closed")
        return at

    def string(self, at: int, prefix: str) -> int:
        """A string literal whose opening quote is at ``at``."""
        text = self.text
        quote = text[at] * 3 if text.startswith(text[at] * 3, at) else text[at]
        body = at + len(quote)
        if "f" not in prefix:
            end = self._plain_body(body, quote)
        else:
            self._fstring_depth += 1
            end = self._fstring_body(body, quote)
            self._fstring_depth -= 1
            if self._fstring_depth == 0:
                self.bodies.append((body, end, len(quote) == 1))
        return end + len(quote)

    def _plain_body(self, at: int, quote: str) -> int:
        """The index of the quote that closes a string without fields."""
        text = self.text
        while not text.startswith(quote, at):
            if at >= len(text) or (len(quote) == 1 and text[at] in _LINE_ENDS):
                raise _Malformed(f"a string is not closed (character {at})")
            at = self._escape(at) if text[at] == "\\" else at + 1
        return at

    def _fstring_body(self, at: int, quote: str) -> int:
        """The index of the quote that closes an f-string: literal text and fields."""
        text = self.text
        while not text.startswith(quote, at):
            if at >= len(text) or (len(quote) == 1 and text[at] in _LINE_ENDS):
                raise _Malformed(f"an f-string is not closed (character {at})")
            char = text[at]
            if text.startswith(("{{", "}}"), at):
                at += 2
            elif char == "{":
                at = self._field(at + 1, quote)
            elif char == "\\":
                at = self._escape(at)
            else:
                at += 1
        return at

    def _escape(self, at: int) -> int:
        r"""Past a backslash and what it escapes; a brace after it still opens a field.

        A named character (``\N{DIGIT ONE}``) then reads as a field: a name holds no quote,
        bracket or colon, so that field ends at the name's own brace, and all is blanked.
        """
        if self.text.startswith("\\\r\n", at):
            return at + 3  # a line continued: the two characters of a CRLF go together
        if at + 1 < len(self.text) and self.text[at + 1] not in "{}":
            return at + 2
        return at + 1

    def _field(self, at: int, quote: str) -> int:
        """Past the ``}`` closing a replacement field whose code starts at ``at``."""
        at = self.code(at, in_field=True)
        if self.text[at] == ":":
            at = self._format_spec(at + 1, quote)
        return at + 1

    def _format_spec(self, at: int, quote: str) -> int:
        """The index of the ``}`` ending a format spec, past any fields nested in it."""
        text = self.text
        while text[at : at + 1] != "}":
            if at >= len(text) or text.startswith(quote, at):
                raise _Malformed(f"a format spec is not closed (character {at})")
            at = self._field(at + 1, quote) if text[at] == "{" else at + 1
        return at


def _line_end(text: str, at: int) -> int:
    """The index of the line end after ``at``, or of the end of the text."""
    end = _LINE_END.search(text, at)
    return len(text) if end is None else end.start()
