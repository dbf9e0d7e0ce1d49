"""tree-sitter plumbing the Go and Rust chunkers share: parsing, syntax errors, doc comments."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

import tree_sitter_go
import tree_sitter_rust
from tree_sitter import Language, Node, Parser, Tree

from bot.corpus.code.source import SourceLines, Unchunkable

_GRAMMARS = {"go": tree_sitter_go.language, "rust": tree_sitter_rust.language}


@cache
def _parser(grammar: str) -> Parser:
    return Parser(Language(_GRAMMARS[grammar]()))


def parse(grammar: str, lines: SourceLines, what: str) -> Tree:
    """Parse a file, refusing one with a syntax error.

    A file that does not parse is skipped whole rather than chunked from a guessed tree: a
    recovered tree can place a body inside a signature, and the chunk would then say
    something the code does not (indexing reference: a file that stops parsing yields no
    document).

    Args:
        grammar: ``go`` or ``rust``.
        lines: the file.
        what: the language's name for messages ("Go").

    Raises:
        Unchunkable: the file has a syntax error; the message names its line.
    """
    tree = _parser(grammar).parse(lines.data)
    root = tree.root_node
    if root.has_error:
        line = lines.line_of(_first_error(root).start_byte)
        raise Unchunkable(f"{what} syntax error near line {line}")
    return tree


def _first_error(root: Node) -> Node:
    """The first ERROR or MISSING node, found without recursion (trees can be deep)."""
    node = root
    while True:
        for child in node.children:
            if child.is_error or child.is_missing:
                return child
            if child.has_error:
                node = child
                break
        else:
            return node


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
) -> int:
    """The first line of the doc comment above ``siblings[index]``, else its own first line.

    The doc is the run of nodes ``attaches`` accepts (comments, attributes) that sit directly
    above the declaration: no blank line between them, and each on a line of its own, so a
    trailing comment of the declaration before is never taken for this one's doc.
    """
    first = lines.line_of(siblings[index].start_byte)
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
