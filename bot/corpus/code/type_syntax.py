"""Python 3.12's type syntax, blanked out so that an older parser can read the rest (pure).

``def first[T](items: list[T]) -> T``, ``class Box[T]:`` and ``type Pairs = list[Pair]``
are a syntax error to the Python this runs on, and ``ast`` gives up on the whole file at the
first of them. Rewritten as ``def first   (...)``, ``class Box   :`` and ``pass``, every
declaration parses, and on the lines and at the byte offsets of the original: each character
removed becomes as many spaces as it took bytes, and no line end moves. The passages are then
cut from the original bytes, so they show the type parameters as written.
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Sequence

from bot.corpus.code.blanking import blanked, width

# A position in the decoded text: a 1-based line and a 0-based column, as ``tokenize`` gives.
_Position = tuple[int, int]
_Span = tuple[tuple[_Position, _Position], str]  # what to blank, and the text left at its start
_OPENING = {"[": "]", "(": ")", "{": "}"}
_STATEMENT_START = {tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING}


def without_type_syntax(data: bytes) -> bytes | None:
    """``data`` with type parameter lists and ``type`` statements blanked; ``None`` if none.

    ``None`` as well when the file cannot be read as Python tokens: there is nothing to
    rewrite with confidence then, and the parser's own error stands.
    """
    return blanked(data, _blank_type_syntax)


def _blank_type_syntax(text: str, encoding: str) -> str | None:
    """``text`` with its type syntax blanked, widths measured in ``encoding``; ``None`` if none."""
    # Lines as tokenize numbers them: a lone carriage return ends one too.
    lines = io.StringIO(text, newline="").readlines()
    try:
        tokens = list(tokenize.generate_tokens(iter(lines).__next__))
    except (SyntaxError, tokenize.TokenError, StopIteration):
        return None
    spans = _type_syntax(tokens)
    if not spans:
        return None
    for (start, end), keep in spans:
        _blank(lines, start, end, encoding, keep)
    return "".join(lines)


def _type_syntax(tokens: Sequence[tokenize.TokenInfo]) -> list[_Span]:
    """The spans to blank, each with the text that stays at its start (``pass``, or none)."""
    spans: list[_Span] = []
    code = [t for t in tokens if t.type not in (tokenize.NL, tokenize.COMMENT)]
    for i, token in enumerate(code):
        if token.type != tokenize.NAME or i + 2 >= len(code):
            continue
        name, after = code[i + 1], code[i + 2]
        if name.type != tokenize.NAME:
            continue
        if token.string in ("def", "class") and after.string == "[":
            close = _closing(code, i + 2)
            if close is not None:
                spans.append(((after.start, code[close].end), ""))
        elif token.string == "type" and _starts_statement(code, i) and after.string in ("[", "="):
            end = _statement_end(code, i)
            if end is not None:
                spans.append(((token.start, end), "pass"))
    return spans


def _starts_statement(code: Sequence[tokenize.TokenInfo], at: int) -> bool:
    if at == 0:
        return True
    before = code[at - 1]
    return before.type in _STATEMENT_START or (before.type == tokenize.OP and before.string == ";")


def _closing(code: Sequence[tokenize.TokenInfo], at: int) -> int | None:
    """The index of the bracket that closes the one at ``at``."""
    depth = 0
    for i in range(at, len(code)):
        token = code[i]
        if token.type != tokenize.OP:
            continue
        if token.string in _OPENING:
            depth += 1
        elif token.string in _OPENING.values():
            depth -= 1
            if depth == 0:
                return i
    return None


def _statement_end(code: Sequence[tokenize.TokenInfo], at: int) -> _Position | None:
    """Where the statement starting at ``at`` ends: before its NEWLINE, or a ``;``."""
    depth = 0
    for token in code[at:]:
        if token.type == tokenize.OP and token.string in _OPENING:
            depth += 1
        elif token.type == tokenize.OP and token.string in _OPENING.values():
            depth -= 1
        elif depth == 0 and (
            token.type in (tokenize.NEWLINE, tokenize.ENDMARKER)
            or (token.type == tokenize.OP and token.string == ";")
        ):
            return token.start
    return None


def _blank(lines: list[str], start: _Position, end: _Position, encoding: str, keep: str) -> None:
    """Replace ``start..end`` with ``keep`` then spaces, byte for byte, line ends kept."""
    (first_row, first_col), (last_row, last_col) = start, end
    for row in range(first_row, last_row + 1):
        line = lines[row - 1]
        body = line.rstrip("\r\n")
        left = first_col if row == first_row else 0
        right = last_col if row == last_row else len(body)
        filler = (keep if row == first_row else "").ljust(width(body[left:right], encoding))
        lines[row - 1] = body[:left] + filler + body[right:] + line[len(body) :]
