"""tree-sitter plumbing the Go and Rust chunkers share: parsing, blanking, errors, doc comments."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache

import tree_sitter_go
import tree_sitter_rust
from tree_sitter import Language, Node, Parser, Range, Tree

from bot.corpus.code.source import SourceLines, Symbol, Unchunkable

_GRAMMARS = {"go": tree_sitter_go.language, "rust": tree_sitter_rust.language}


@cache
def _language(grammar: str) -> Language:
    return Language(_GRAMMARS[grammar]())


@cache
def _parser(grammar: str) -> Parser:
    return Parser(_language(grammar))


# Finds, in a tree with errors, the tokens of syntax newer than the grammar (``rust_newer``).
Newer = Callable[[Node], Sequence[Node]]


def parse(grammar: str, lines: SourceLines, newer: Newer | None = None) -> Tree:
    """Parse a file with tree-sitter, which recovers from syntax errors rather than stopping.

    The tokens ``newer`` finds are parsed as spaces: see ``_reparsed``.
    """
    parser = _parser(grammar)
    return _reparsed(parser, parser.parse(lines.data), lines.data, newer)


def parse_between(
    grammar: str, lines: SourceLines, opening: Node, closing: Node, newer: Newer | None = None
) -> Tree:
    """Parse only the text between two nodes, such as a macro call's braces.

    The tree's offsets and lines are the whole file's, and the work is the enclosed text's.
    """
    span = Range(opening.end_point, closing.start_point, opening.end_byte, closing.start_byte)
    parser = Parser(_language(grammar), included_ranges=[span])
    return _reparsed(parser, parser.parse(lines.data), lines.data, newer)


def _reparsed(parser: Parser, tree: Tree, data: bytes, newer: Newer | None) -> Tree:
    """``tree``, or the tree of ``data`` with the tokens ``newer`` finds in it as spaces.

    Each byte of such a token becomes one space, so every offset and line of the new tree is
    the file's, and a chunk's text is still cut from the file's own lines, token and all.
    Left in, the token is an error that costs the declaration it stands in (``readable``).

    Neighbouring tokens may make one error of which ``newer`` knows only one part (a foreign
    ``pub type`` right above a ``pub safe fn``): the new tree is asked again, a few times at
    most, as each pass blanks at least one token more.
    """
    if newer is None:
        return tree
    blanked = bytearray(data)
    for _ in range(_NEWER_PASSES):
        if not tree.root_node.has_error:
            return tree
        tokens = newer(tree.root_node)
        if not tokens:
            return tree
        for token in tokens:
            blank(blanked, token.start_byte, token.end_byte)
        tree = parser.parse(bytes(blanked))
    return tree


# How many times at most ``_reparsed`` parses a file again: a real file needs one or two.
_NEWER_PASSES = 4


def blank(copy: bytearray, start: int, end: int) -> None:
    """Spaces in place of ``copy[start:end]``, its line breaks kept so lines stay where they are."""
    copy[start:end] = bytes(b if b in b"\r\n" else 0x20 for b in copy[start:end])


def readable(symbols: Iterable[Symbol], root: Node, lines: SourceLines, what: str) -> list[Symbol]:
    """The symbols whose lines hold nothing the parser could not read.

    Source a grammar does not know (Rust 2015's ``try!`` where the grammar has the ``try``
    keyword, syntax newer than the grammar) costs the declarations on those lines, not the
    file: serde's ``Deserializer`` trait sits in a file with ``try!`` in a default method
    body. A declaration whose stored lines (doc comment and signature) touch an error is
    left out, never chunked from a guessed tree, since a recovered tree can place a body
    inside a signature. An error inside a body touches no stored line.

    A file with nothing worth keeping and an error only inside declarations (a ``main``
    package's broken function body) lost nothing to the error, and is returned empty.

    Raises:
        Unchunkable: the file has a syntax error, and either every declaration worth keeping
            touches it, or none was found and the error stands between declarations, where
            it may hide some; the message names the error's line.
    """
    symbols = list(symbols)
    if not root.has_error:
        return symbols
    broken = error_lines(root, lines)
    kept = [s for s in symbols if not touches(s, broken)]
    between = any(child.is_error or child.is_missing for child in root.children)
    if kept or (not symbols and not between):
        return kept
    raise Unchunkable(f"{what} syntax error near line {broken[0][0]}")


def touches(symbol: Symbol, broken: Sequence[tuple[int, int]]) -> bool:
    """Whether one of the symbol's lines lies in one of the ``broken`` line ranges."""
    return any(first <= symbol.last_line and symbol.first_line <= last for first, last in broken)


def error_lines(root: Node, lines: SourceLines) -> list[tuple[int, int]]:
    """The line ranges of every ERROR or MISSING node, in file order."""
    found = [
        (lines.line_of(node.start_byte), lines.last_line_of(node.start_byte, node.end_byte))
        for node in errors(root)
    ]
    return sorted(found) or [(1, lines.count)]


def errors(root: Node) -> list[Node]:
    """Every outermost ERROR or MISSING node under ``root``, found without recursion."""
    found = []
    pending = [root]
    while pending:
        node = pending.pop()
        for child in node.children:
            if child.is_error or child.is_missing:
                found.append(child)
            elif child.has_error:
                pending.append(child)
    return found


def text_of(node: Node | None) -> str:
    """A node's source text (identifiers are ASCII or valid UTF-8 in any parsable file)."""
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", errors="replace")


def doc_start(
    siblings: Sequence[Node],
    index: int,
    lines: SourceLines,
    attaches: Callable[[Node], bool],
    since: int | None = None,
) -> int:
    """The first line of the doc comment above ``siblings[index]``, else its own first line.

    The doc is the run of nodes ``attaches`` accepts (comments, attributes) that sit directly
    above the declaration: no blank line between them, and each on a line of its own, so a
    trailing comment of the declaration before is never taken for this one's doc. ``since``:
    the declaration's first line where that is above its node's (a foreign type's ``pub``,
    parsed as spaces).
    """
    first = lines.line_of(siblings[index].start_byte) if since is None else since
    j = index - 1
    while j >= 0:
        node = siblings[j]
        if not attaches(node):
            break
        if lines.last_line_of(node.start_byte, node.end_byte) < first - 1:
            break  # a blank line separates it
        node_line = lines.line_of(node.start_byte)
        if lines.data[lines.line_start(node_line) : node.start_byte].strip():
            break  # code before it on its line: it belongs to that code
        first = node_line
        j -= 1
    return first
