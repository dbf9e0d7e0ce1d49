"""A crate's own ``macro_rules!`` templates read as Rust items (pure).

regex 1.7 declares ``RegexSet`` and its methods once, in a macro it calls for ``&str`` and for
``&[u8]``; a crate may declare modules so too. The grammar sees a token tree there. Each rule's
template is parsed again as items, from one copy of the file in which every template's macro
syntax is blanked (``_without_macro_syntax``), so the offsets and lines stay the file's and
what is cut from them is the file's own text. The chunker reads the templates' items
(``bot.corpus.code.rust``), and the module resolver their ``mod`` declarations
(``bot.corpus.code.rust_modules``), each once per template, however often it is called.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tree_sitter import Node

from bot.corpus.code.rust_newer import extern_item_qualifiers
from bot.corpus.code.source import SourceLines, Symbol
from bot.corpus.code.syntax import blank, error_lines, parse_between, touches


@dataclass(frozen=True, slots=True)
class Template:
    """One rule's template, read as items."""

    items: Sequence[Node]
    lines: SourceLines  # the file with the templates' macro syntax blanked, read in its place
    metavariables: frozenset[int]  # where each ``$name`` starts
    broken: tuple[tuple[int, int], ...]  # lines the parse could not read: their items are left out

    def readable(self, symbol: Symbol) -> bool:
        """Whether none of the symbol's lines is one the parse could not read."""
        return not touches(symbol, self.broken)

    def named_by_caller(self, name: Node | None) -> bool:
        """Whether ``name`` is a ``$name``: whatever the macro's caller passes."""
        return name is not None and name.start_byte in self.metavariables


def read_templates(macros: Sequence[Node], lines: SourceLines) -> list[list[Template]]:
    """Each ``macro_rules!`` definition's templates, one per rule written in braces.

    Args:
        macros: ``macro_definition`` nodes of the file ``lines`` holds.
        lines: the file.

    Returns:
        A list for each of ``macros``, in their order.
    """
    rules = [
        [
            template
            for rule in macro.children
            if rule.type == "macro_rule"
            and (template := rule.child_by_field_name("right")) is not None
            and template.child_count >= 3
            and template.children[0].type == "{"
        ]
        for macro in macros
    ]
    if not any(rules):
        return [[] for _ in macros]
    copy = bytearray(lines.data)
    metavariables: set[int] = set()
    for template in (t for templates in rules for t in templates):
        metavariables |= _without_macro_syntax(copy, lines.data, template)
    blanked = SourceLines(bytes(copy))
    names = frozenset(metavariables)
    read: list[list[Template]] = []
    for templates in rules:
        read.append([])
        for template in templates:
            opening, closing = template.children[0], template.children[-1]
            root = parse_between("rust", blanked, opening, closing, extern_item_qualifiers)
            top = root.root_node
            broken = tuple(error_lines(top, blanked)) if top.has_error else ()
            read[-1].append(Template(top.children, blanked, names, broken))
    return read


def _without_macro_syntax(copy: bytearray, data: bytes, template: Node) -> set[int]:
    """Blank a template's macro syntax in ``copy`` (of ``data``); return where its ``$``s stand.

    ``$name`` becomes ``_name``, an identifier. A repetition, ``$(...)`` with an optional
    separator and ``*``, ``+`` or ``?``, is read as one copy of what it repeats when it has
    lines of its own (``$(#[$doc])*`` between a doc comment's lines: an attribute), and as
    no copy when it shares a line with other code (``Sized $(+ $bound)*``, a list whose
    empty form is still a signature).
    """
    metavariables = set()
    pending = [template]
    while pending:
        node = pending.pop()
        for child in node.children:
            if child.type == "metavariable":
                copy[child.start_byte] = ord("_")
                metavariables.add(child.start_byte)
            elif child.type == "token_repetition" and _on_lines_of_its_own(data, child):
                closes = [i for i, mark in enumerate(child.children) if mark.type == ")"]
                marks = child.children[:2] + child.children[closes[-1] if closes else 2 :]
                for mark in marks:
                    blank(copy, mark.start_byte, mark.end_byte)
                pending.append(child)
            elif child.type == "token_repetition":
                blank(copy, child.start_byte, child.end_byte)
            elif child.child_count:
                pending.append(child)
    return metavariables


def _on_lines_of_its_own(data: bytes, node: Node) -> bool:
    before = data[data.rfind(b"\n", 0, node.start_byte) + 1 : node.start_byte]
    line_end = data.find(b"\n", node.end_byte)
    after = data[node.end_byte : len(data) if line_end < 0 else line_end]
    return not before.strip() and not after.strip()
