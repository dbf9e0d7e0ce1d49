"""Newer f-strings and t-strings, blanked so that an older parser can read the rest (pure).

Since Python 3.12 (PEP 701) a replacement field is ordinary code: ``f"{d["key"]}"`` reuses
the string's own quote, a field may hold backslashes and comments, and a field in a
single-quoted f-string may run over several lines. Since Python 3.14 (PEP 750) a template
string, ``t"Hello {name}"`` (``t`` or ``T``, alone or with ``r`` or ``R`` in either order), has
the same fields. The Python this runs on reads all of that as a syntax error, and ``ast``
gives up on the whole file at the first one.

What such a string says inside is never part of a declaration's outline, so each one is kept
as an f-string with an empty body: ``f"{d["key"]}"`` becomes ``f"          "``, and
``t"{name}"`` becomes ``f"      "``. Each character blanked becomes as many spaces as it took
bytes and no line end moves, so every declaration parses on the lines and at the byte offsets
of the original, and the passages are then cut from the original bytes. It stays an f-string,
not a plain string, so that one standing first in a body is still not read as that body's
docstring. A line end inside a single-quoted f-string gets a backslash just before it, which
continues a string literal onto the next line in every Python version; an empty line leaves
no room for one, so such a string becomes a call in brackets, over which any line may run:
``f"{`` / (empty) / ``x}"`` becomes ``""(`` / (empty) / ``  )``, no docstring either. No
string may follow a call, so the strings written right after it, which Python joins to it,
go into its brackets too: ``f"{`` / (empty) / ``x}" "more"`` becomes ``""(`` / (empty) /
``         )``. One written before it needs nothing: ``"more" ""(...)`` calls the two.

``tokenize`` cannot find where such an f-string ends (it is the old tokenizer that fails),
hence the small scanner below: it reads code, strings and comments, and inside an f-string
its literal text, its replacement fields (code again, in brackets) and their format specs.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from bot.corpus.code.blanking import blanked, width

# String prefixes, lower-cased, each the whole name before the quote; ``u`` combines with no
# other letter, and ``t`` with ``r`` alone (PEP 750).
_PREFIXES = frozenset({"", "r", "u", "b", "br", "rb", "f", "fr", "rf", "t", "tr", "rt"})
# The letters that give a string replacement fields: an f-string's, or a t-string's.
_FIELDS = frozenset("ft")
# A t-string is blanked to an f-string: the Python this runs on knows no ``t`` prefix.
_AS_FSTRING = str.maketrans("tT", "fF")
_OPENING = "([{"
_CLOSING = ")]}"
_LINE_ENDS = "\r\n"
_LINE_END = re.compile("[\r\n]")
# What may stand before a string's opening quote: the prefix, if the letters make one.
_PREFIX = re.compile("[A-Za-z]*(?=[\"'])")


class _Malformed(Exception):
    """The text is not Python the scanner can read (an unterminated string, an open field)."""


def without_fstrings(data: bytes) -> bytes | None:
    """``data`` with the body of every f-string and t-string blanked; ``None`` if it has none.

    ``None`` as well when the file cannot be scanned (an unterminated string or field, an
    unknown encoding): there is nothing to rewrite with confidence then, and the parser's own
    error stands.
    """
    return blanked(data, blank_fstrings)


def blank_fstrings(text: str, encoding: str = "utf-8") -> str | None:
    """``text`` with every f-string and t-string blanked, or ``None`` if it has none.

    Every line keeps its byte length in ``encoding`` and its line end. Nested strings go
    with the one around them.

    Raises:
        SyntaxError: the text cannot be scanned as Python (the message says where).
    """
    scanner = _Scanner(text)
    out: list[str] = []
    done = 0
    try:
        scanner.code(0, in_field=False)
        if not scanner.strings:
            return None
        for string in scanner.strings:
            if string.prefix < done:
                continue  # joined to one before it, and blanked with it
            out.append(text[done : string.prefix])
            if _needs_brackets(text, string):
                done = _joined_end(text, string)
                out.append(_in_brackets(text[string.prefix : done], encoding))
            else:
                out.append(_blank_string(text, string, encoding))
                done = string.end
    except (_Malformed, RecursionError) as exc:
        raise SyntaxError(f"cannot blank f-strings: {exc}") from None
    out.append(text[done:])
    return "".join(out)


class _Found(NamedTuple):
    """Where an outermost f-string or t-string lies in the text."""

    prefix: int  # the index of its prefix
    body: int  # of its body, past the opening quote
    body_end: int  # of the closing quote
    end: int  # past the closing quote
    bracketed: bool  # whether it stands inside brackets, where a line end ends no statement


def _needs_brackets(text: str, found: _Found) -> bool:
    """Whether ``found`` is single-quoted and holds an empty line: no backslash fits there."""
    return found.end - found.body_end == 1 and _has_empty_line(text[found.body : found.body_end])


def _joined_end(text: str, found: _Found) -> int:
    """Past the last string written right after ``found``, which Python joins to it.

    Past ``found`` itself when none is. Between two strings may stand spaces and a line
    continued with a backslash, and, inside brackets, line ends and comments.
    """
    scanner = _Scanner(text)
    end = found.end
    while True:
        start = _past_space(text, end, found.bracketed)
        prefix = _PREFIX.match(text, start)
        if prefix is None or prefix.group().lower() not in _PREFIXES:
            return end
        end = scanner.string(prefix.end(), prefix.group().lower(), bracketed=found.bracketed)


def _past_space(text: str, at: int, bracketed: bool) -> int:
    """The index of what follows the space, continued lines and comments from ``at``."""
    while at < len(text):
        char = text[at]
        if char in " \t\f" or (bracketed and char in _LINE_ENDS):
            at += 1
        elif bracketed and char == "#":
            at = _line_end(text, at)
        elif char == "\\" and text[at + 1 : at + 2] in ("\r", "\n"):
            at = at + 3 if text.startswith("\\\r\n", at) else at + 2
        else:
            break
    return at


def _blank_string(text: str, found: _Found, encoding: str) -> str:
    """The f-string to parse in place of ``found``, as wide as it, line for line.

    ``found`` needs no brackets (``_in_brackets`` takes those).
    """
    body = text[found.body : found.body_end]
    single_quoted = found.end - found.body_end == 1
    prefix = text[found.prefix : found.body].translate(_AS_FSTRING)
    return prefix + _blank(body, encoding, single_quoted) + text[found.body_end : found.end]


def _blank(body: str, encoding: str, single_quoted: bool) -> str:
    """Spaces for every byte of ``body``; its line ends kept, after a backslash if single-quoted.

    A single-quoted body has no empty line (``_in_brackets`` takes those).
    """
    out = []
    for i, char in enumerate(body):
        if char in _LINE_ENDS:
            out.append(char)
            continue
        filler = " " * width(char, encoding)
        if single_quoted and i + 1 < len(body) and body[i + 1] in _LINE_ENDS:
            filler = filler[:-1] + "\\"
        out.append(filler)
    return "".join(out)


def _in_brackets(string: str, encoding: str) -> str:
    """A single-quoted f-string holding an empty line as ``""(`` and ``)``, blank in between.

    ``string`` is that f-string and any strings joined after it. The first line holds at
    least three bytes, the prefix, the quote and the ``{`` or backslash before its line end;
    the last one ends with a closing quote, where the ``)`` goes.
    """
    out = _blank(string, encoding, single_quoted=False)
    return '""(' + out[3:-1] + ")"


def _has_empty_line(body: str) -> bool:
    """Whether a line of ``body`` that a line end ends has nothing on it."""
    return any(char in _LINE_ENDS and _starts_empty_line(body, i) for i, char in enumerate(body))


def _starts_empty_line(body: str, at: int) -> bool:
    """Whether the line end at ``at`` ends a line with nothing on it.

    The line feed of a CRLF belongs to the carriage return before it.
    """
    if body[at] == "\n" and at > 0 and body[at - 1] == "\r":
        return False
    return at == 0 or body[at - 1] in _LINE_ENDS


class _Scanner:
    """Walks Python text once, noting where each outermost f-string or t-string lies.

    Every method takes the index to start at; each says which index it returns.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        # Each outermost f-string or t-string, in order.
        self.strings: list[_Found] = []
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
                at = self.string(at, "", bracketed=depth > 0)
            elif char.isalnum() or char == "_":
                start = at
                while at < len(text) and (text[at].isalnum() or text[at] == "_"):
                    at += 1
                prefix = text[start:at].lower()
                if at < len(text) and text[at] in "\"'" and prefix in _PREFIXES:
                    at = self.string(at, prefix, bracketed=depth > 0)
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

    def string(self, at: int, prefix: str, *, bracketed: bool) -> int:
        """A string literal whose opening quote is at ``at``, after ``prefix`` (lower-cased).

        ``bracketed``: whether it stands inside brackets (at the outermost level, the only
        one where that is noted).
        """
        text = self.text
        quote = text[at] * 3 if text.startswith(text[at] * 3, at) else text[at]
        body = at + len(quote)
        if _FIELDS.isdisjoint(prefix):
            end = self._plain_body(body, quote)
        else:
            self._fstring_depth += 1
            end = self._fstring_body(body, quote)
            self._fstring_depth -= 1
            if self._fstring_depth == 0:
                found = _Found(at - len(prefix), body, end, end + len(quote), bracketed)
                self.strings.append(found)
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
