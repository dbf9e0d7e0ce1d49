"""Go source as prose: the package doc, exported declarations, and every constant.

Rules (indexing reference, "How code is cut"):

- the package doc comment is a chunk titled ``package <name>``;
- each exported function, method (``Type.Method``, value or pointer receiver, on an exported
  type, as ``go doc`` lists them), type and variable is a chunk holding its doc comment and
  its signature, never a function body; a type's declaration (struct fields, interface
  methods) *is* its signature;
- every constant, exported or not, is a chunk holding its doc comment and its value: a
  constant is where a default or a limit lives, which is what people ask about;
- unexported functions, types and variables are left out, and so are files a tool
  generated (``// Code generated ... DO NOT EDIT.`` or a ``//line`` directive before the
  package clause).

Each chunk is a contiguous range of lines: the doc comment, then the declaration up to the
line where its body opens. In a grouped declaration (``const ( ... )``) every constant is a
chunk of its own, so a citation points at its line; one without a comment of its own has
the group's comment summarised in its heading path, since Go reads that comment as
describing every member; one without a value of its own has the type and value it repeats
(``implicitly Kind = iota, iota = 2``) there too. A grouped constant with no comment of its
own whose value only numbers it (counted with ``iota``, or a character code of its own type,
written or repeated) is a bare enumeration member, which ranks at half weight.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Literal

from tree_sitter import Node

from bot.corpus.chunk import Chunk
from bot.corpus.code.source import SourceLines, Symbol, Unchunkable, looks_generated
from bot.corpus.code.syntax import doc_start, parse, readable, text_of

# The convention the go tool itself checks (golang.org/s/generatedcode).
_GENERATED = re.compile(rb"^// Code generated .* DO NOT EDIT\.\r?$", re.MULTILINE)
# A //line directive maps the file's lines to another source it was produced from (ragel,
# goyacc); before the package clause it marks the whole file as a tool's output.
_LINE_DIRECTIVE = re.compile(rb"^//line \S+:\d+", re.MULTILINE)
_SUMMARY_CHARS = 120

ConstGroups = Literal["each", "block"]
"""How a grouped ``const ( ... )`` is cut: a chunk per constant (the default, chosen on the
retrieval benchmark), or one chunk per group with every name in its search terms."""

# Go's own basic types, which a constant of an enumeration's own type is not.
_PREDECLARED_TEXT = """
bool byte complex64 complex128 float32 float64 int int8 int16 int32 int64 rune string uint
uint8 uint16 uint32 uint64 uintptr
"""
_PREDECLARED_TYPES = frozenset(_PREDECLARED_TEXT.split())

_SPEC_TYPES = {
    "const_declaration": ("const_spec",),
    "var_declaration": ("var_spec",),
    "type_declaration": ("type_spec", "type_alias"),
}


def chunk_go(path: str, data: bytes, *, const_groups: ConstGroups = "each") -> list[Chunk]:
    """Cut one Go file into symbol chunks, in file order.

    Args:
        path: the file's repository-relative path (for messages).
        data: the file's bytes.
        const_groups: how grouped constants are cut (see ``ConstGroups``).

    Raises:
        Unchunkable: the file is generated, has no package clause, or has no declaration
            that parses.
    """
    lines = SourceLines(data)
    root = parse("go", lines).root_node
    top = root.children
    package_at = next((i for i, n in enumerate(top) if n.type == "package_clause"), None)
    if package_at is None:
        raise Unchunkable(f"{path} has no package clause")
    header = data[: top[package_at].start_byte]
    if (
        _GENERATED.search(header)
        or _LINE_DIRECTIVE.search(header)
        or looks_generated(header.decode("utf-8", errors="replace"))
    ):
        raise Unchunkable(f"{path} is generated (its header says so)")
    title = f"package {_package_name(top[package_at])}"

    cutter = _Cutter(lines, const_groups)
    symbols: list[Symbol] = []
    doc_first = doc_start(top, package_at, lines, _is_comment)
    package_line = lines.line_of(top[package_at].start_byte)
    if doc_first < package_line:
        symbols.append(Symbol(title, title, (title,), doc_first, package_line - 1))
    for index in range(len(top)):
        symbols.extend(cutter.declaration(top, index))

    return lines.chunks_of(readable(symbols, root, lines, "Go"))


def _is_comment(node: Node) -> bool:
    return node.type == "comment"


def _package_name(clause: Node) -> str:
    for child in clause.children:
        if child.type == "package_identifier":
            return text_of(child)
    return ""


def _exported(name: str) -> bool:
    return name[:1].isupper()


class _Cutter:
    """Turns top-level declarations into symbols."""

    def __init__(self, lines: SourceLines, const_groups: ConstGroups) -> None:
        self.lines = lines
        self.const_groups = const_groups

    def declaration(self, siblings: Sequence[Node], index: int) -> Iterator[Symbol]:
        node = siblings[index]
        kind = node.type
        if kind == "function_declaration":
            name = text_of(node.child_by_field_name("name"))
            if _exported(name):
                yield self._symbol(name, (name,), siblings, index, self._signature_end(node))
        elif kind == "method_declaration":
            name = text_of(node.child_by_field_name("name"))
            receiver = _receiver_type(node)
            if _exported(name) and _exported(receiver):
                symbol = f"{receiver}.{name}"
                end = self._signature_end(node)
                yield self._symbol(symbol, (receiver, name), siblings, index, end)
        elif kind in _SPEC_TYPES:
            yield from self._specs(siblings, index)

    def _symbol(
        self,
        symbol: str,
        names: tuple[str, ...],
        siblings: Sequence[Node],
        index: int,
        last: int,
        context: tuple[str, ...] = (),
    ) -> Symbol:
        first = doc_start(siblings, index, self.lines, _is_comment)
        path = (*context, symbol)
        return Symbol(symbol, symbol, path, first, last, names, exported=_exported(names[0]))

    def _signature_end(self, node: Node) -> int:
        """The line where a function's body opens, or its last line when it has no body."""
        body = node.child_by_field_name("body")
        if body is not None:
            return self.lines.line_of(body.start_byte)
        return self.lines.last_line_of(node.start_byte, node.end_byte)

    def _specs(self, siblings: Sequence[Node], index: int) -> Iterator[Symbol]:
        """The kept specs of a ``const``, ``var`` or ``type`` declaration.

        In a grouped declaration each spec carries the comment directly above it; a
        declaration of one spec carries the comment above its keyword.
        """
        decl = siblings[index]
        wanted = _SPEC_TYPES[decl.type]
        members = decl.children
        spec_list = next((c for c in members if c.type == "var_spec_list"), None)
        if spec_list is not None:
            # tree-sitter-go wraps a grouped var declaration's specs in one more node.
            members = spec_list.children
        if not any(c.type == "(" for c in members):
            for spec in members:
                if spec.type in wanted and (kept := self._names(decl, spec)):
                    end = self._spec_end(spec)
                    yield self._symbol(kept[0], tuple(kept), siblings, index, end)
            return

        summary = self._summary(siblings, index)
        if decl.type == "const_declaration" and self.const_groups == "block":
            every = [n for spec in members if spec.type in wanted for n in self._names(decl, spec)]
            if every:
                end = self.lines.last_line_of(decl.start_byte, decl.end_byte)
                yield self._symbol(
                    every[0], tuple(every), siblings, index, end, (summary,) if summary else ()
                )
            return
        repeated = ""  # the type and value a grouped constant without its own repeats
        numbering = False  # whether that value only numbers the constants that carry it
        position = -1  # iota: the spec's index in the group, counting skipped specs too
        for at, spec in enumerate(members):
            if spec.type not in wanted:
                continue
            implicit = ""
            if decl.type == "const_declaration":
                position += 1
                implicit, repeated = _implicit_value(spec, repeated, position)
                if spec.child_by_field_name("value") is not None:
                    numbering = _only_numbers(spec)
            if not (kept := self._names(decl, spec)):
                continue
            symbol = self._symbol(kept[0], tuple(kept), members, at, self._spec_end(spec))
            has_own_doc = symbol.first_line < self.lines.line_of(spec.start_byte)
            context = tuple(c for c in ("" if has_own_doc else summary, implicit) if c)
            bare = numbering and not has_own_doc and not self._comment_beside(members, at)
            yield replace(symbol, heading_path=(*context, *symbol.heading_path), enum_member=bare)

    def _comment_beside(self, members: Sequence[Node], at: int) -> bool:
        """Whether a comment follows the spec on its last line (``Read Mode = iota // r``)."""
        if at + 1 >= len(members) or not _is_comment(members[at + 1]):
            return False
        spec_end = self.lines.last_line_of(members[at].start_byte, members[at].end_byte)
        return self.lines.line_of(members[at + 1].start_byte) == spec_end

    def _names(self, decl: Node, spec: Node) -> list[str]:
        """The spec's names that make it kept, first the one it is known by; [] to skip it."""
        if spec.type in ("type_spec", "type_alias"):
            names = [text_of(spec.child_by_field_name("name"))]
        else:
            names = [text_of(c) for c in spec.children_by_field_name("name")]
        names = [n for n in names if n and n != "_"]
        if decl.type == "const_declaration":
            return names
        exported = [n for n in names if _exported(n)]
        return exported + [n for n in names if not _exported(n)] if exported else []

    def _summary(self, siblings: Sequence[Node], index: int) -> str:
        """The first line of a grouped declaration's doc comment, markers removed."""
        first = doc_start(siblings, index, self.lines, _is_comment)
        keyword_line = self.lines.line_of(siblings[index].start_byte)
        for line in range(first, keyword_line):
            text = self.lines.text(self.lines.line_start(line), self.lines.line_end(line))
            words = text.strip().lstrip("/*").rstrip("*/").strip()
            if words:
                return words[:_SUMMARY_CHARS]
        return ""

    def _spec_end(self, spec: Node) -> int:
        """A spec's last line, or, when its value holds a function literal, where its body opens.

        The first literal counts, and it may sit at any depth: go-cty declares each function as
        ``var F = function.New(&function.Spec{Description: ..., Params: ..., Impl: func(...)
        {...}})``, whose description, parameters and return type are what a reader looks at
        and whose ``Impl`` is a body. A stored range is contiguous, so whatever follows that
        first body (usually closing braces) is left out with it.
        """
        end = self.lines.last_line_of(spec.start_byte, spec.end_byte)
        value = spec.child_by_field_name("value")
        if spec.type != "var_spec" or value is None:
            return end
        # Looking up each ``func`` keyword costs a few steps; walking a large table's every
        # node to find one would cost the whole table.
        data = self.lines.data
        at = data.find(b"func", value.start_byte, value.end_byte)
        while at >= 0:
            keyword = value.descendant_for_byte_range(at, at + 4)
            literal = keyword.parent if keyword is not None else None
            if keyword is not None and keyword.type == "func" and literal is not None:
                body = literal.child_by_field_name("body")
                if literal.type == "func_literal" and body is not None:
                    return self.lines.line_of(body.start_byte)
            at = data.find(b"func", at + 4, value.end_byte)
        return end


def _implicit_value(spec: Node, repeated: str, position: int) -> tuple[str, str]:
    """What a grouped constant without a value of its own stands for, and what the next repeats.

    Go repeats the last type and value written in the group for a constant that has none
    (``JobToken`` below ``BasicAuth AuthType = iota``), with ``iota`` counting the group's
    specs from 0. Its own line shows only its name, so the context says what it reads as:
    ``implicitly AuthType = iota, iota = 1``.
    """
    value = spec.child_by_field_name("value")
    if value is not None:
        kind = spec.child_by_field_name("type")
        written = (
            f"{text_of(kind)} = {text_of(value)}" if kind is not None else f"= {text_of(value)}"
        )
        return "", " ".join(written.split())
    if not repeated:
        return "", ""
    text = f"implicitly {repeated}"
    if len(text) > _SUMMARY_CHARS:
        text = text[: _SUMMARY_CHARS - 1] + "…"
    if re.search(r"\biota\b", repeated):
        text += f", iota = {position}"
    return text, repeated


def _only_numbers(spec: Node) -> bool:
    """Whether the values a grouped constant writes only tell it apart from the group's others.

    So they do when each counts with ``iota``, or when each is a character code of a type of
    the constant's own (``TokenOHeredoc TokenType = 'H'``). A string or a number says
    something: a wire name, a default, a limit. So does a character of a predeclared type
    (``Comma rune = ','``). A constant that writes no value repeats the last one written,
    and is judged by it.
    """
    value = spec.child_by_field_name("value")
    values = value.named_children if value is not None else []
    if not values:
        return False
    if all(_counts_with_iota(v) for v in values):
        return True
    kind = spec.child_by_field_name("type")
    while kind is not None and kind.type == "parenthesized_type":
        kind = next(iter(kind.named_children), None)
    own_type = kind is not None and text_of(kind) not in _PREDECLARED_TYPES
    return own_type and all(v.type == "rune_literal" for v in values)


def _counts_with_iota(expression: Node) -> bool:
    """Whether ``iota`` itself, not a word in a string, is part of ``expression``."""
    pending = [expression]
    while pending:
        node = pending.pop()
        if node.type == "iota":
            return True
        pending.extend(node.named_children)
    return False


def _receiver_type(method: Node) -> str:
    """``T`` for receivers ``(t T)``, ``(t *T)``, ``(t *T[K, V])``."""
    receiver = method.child_by_field_name("receiver")
    if receiver is None:
        return ""
    for param in receiver.named_children:
        node: Node | None = param.child_by_field_name("type")
        # Pointers, parentheses and type arguments wrap the name a few levels deep at most.
        for _ in range(8):
            if node is None:
                break
            if node.type == "type_identifier":
                return text_of(node)
            if node.type == "generic_type":
                node = node.child_by_field_name("type")
            else:
                node = next(iter(node.named_children), None)
    return ""
