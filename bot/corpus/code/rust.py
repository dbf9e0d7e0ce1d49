"""Rust source as prose: crate and module docs, the public API, and constants.

Rules, the Go ones carried over to Rust's conventions:

- the ``//!`` docs opening a file (or an inline ``mod``) are a chunk titled ``crate <name>``
  for a crate root, ``module <name>`` otherwise; the docs written above a ``pub mod``, inline
  or not, are a chunk ``module <name>`` ending on its ``mod`` line;
- each ``pub`` item is a chunk holding its ``///`` docs and attributes and its signature,
  never a function body: functions up to the line their body opens on; structs, enums,
  unions and type aliases whole (their fields and variants are the declaration); traits up
  to their opening brace, with each of their items a chunk of its own (``Trait.method``);
- methods of an inherent ``impl Type`` block are ``Type.method``, and those of an
  ``impl dyn Trait`` block ``Trait.method``; trait implementations are left out (their
  documentation is the trait's);
- every ``const``, public or not, and every ``pub static`` is a chunk holding its value (a
  ``const`` without ``pub`` ranks at half weight, as private constants do in Go and Python);
- the ``pub`` items of an ``extern "C" { ... }`` block, a foreign function's signature, a
  foreign ``static`` or a foreign ``type``, are chunks as those written in Rust are, Rust
  2024's ``unsafe extern`` blocks with their ``safe fn`` and ``unsafe static`` items included
  (``rust_newer``);
- so are the items inside a macro call's braces, a ``cfg_if!`` chain's branches included
  (``rust_wrappers``), and those a ``macro_rules!`` template of the crate's own writes out
  (once per template, not per call), unless the caller names them;
- items compiled only for tests (``#[cfg(test)]``, ``#[cfg(all(test, ...))]``, any ``cfg``
  that cannot hold without ``test`` or on any target: ``bot.corpus.code.rust_cfg``), with
  all a module, trait or ``impl`` so compiled holds (a module or file saying so at its top,
  ``#![cfg(test)]``, too; ``#[cfg_attr(test, ...)]`` only adds attributes, and is no
  ``cfg``), and files whose header says they were generated are skipped, and so is whatever
  ``#[doc(hidden)]`` hides from rustdoc: the item, and all a hidden module, trait or impl
  holds (a module hidden by ``#![doc(hidden)]`` at its top too); a file cannot tell that the
  ``mod`` naming it elsewhere is hidden, so the indexer leaves such a file out before it is
  chunked (``bot.corpus.code.rust_modules``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from tree_sitter import Node

from bot.corpus.chunk import Chunk
from bot.corpus.code.rust_cfg import for_no_target, only_for_tests
from bot.corpus.code.rust_newer import extern_item_qualifiers, foreign_type_visibility
from bot.corpus.code.rust_templates import Template, read_templates
from bot.corpus.code.rust_wrappers import macro_items
from bot.corpus.code.source import SourceLines, Symbol, Unchunkable, looks_generated
from bot.corpus.code.syntax import (
    doc_start,
    parse,
    readable,
    text_of,
)

_COMMENTS = ("line_comment", "block_comment")
_WHOLE_ITEMS = ("struct_item", "enum_item", "union_item", "type_item")
# Why an item is left out, for the log.
HIDDEN = "hidden from the API docs"
TEST_ONLY = "compiled only for tests"
NO_TARGET = "compiled for no target"


@dataclass(slots=True)
class _Macros:
    """What the walk finds of the crate's own macros, whose templates are read last."""

    defined: list[tuple[_Scope, Node]] = field(default_factory=list)
    # By the module and name a macro is called with, the types whose ``impl`` blocks call it:
    # ``impl u32 { int_impl!() }`` makes the members its template writes ``u32``'s. An empty
    # owner is an ``impl`` or trait whose members are not indexed (a trait's implementation,
    # a hidden ``impl``, a trait's own body): what the macro writes there is left out too.
    called_in: dict[tuple[tuple[str, ...], str], set[str]] = field(default_factory=dict)

    def called(self, scope: _Scope, call: Node, owner: str) -> None:
        """Record that ``call`` writes members of ``owner`` (see ``called_in``)."""
        name = call.child_by_field_name("macro")
        if name is not None and name.type == "scoped_identifier":  # ``crate::int_impl!``
            name = name.child_by_field_name("name")
        self.called_in.setdefault((scope.path, text_of(name)), set()).add(owner)

    def owners(self, scope: _Scope, macro: Node) -> set[str]:
        """The types whose ``impl`` blocks in ``scope``'s module call ``macro``."""
        return self.called_in.get((scope.path, text_of(macro.child_by_field_name("name"))), set())


@dataclass(frozen=True, slots=True)
class _Scope:
    """A list of items being walked: a file, an inline module, a trait or an impl body."""

    items: Sequence[Node]
    title: str  # what its //! docs are titled: "crate x", "module y"
    path: tuple[str, ...] = ()  # the inline modules it sits in
    owner: str = ""  # the type or trait whose members these are
    in_trait: bool = False
    # Items in braces that are no module (a macro call's, an extern block's): no module docs.
    items_only: bool = False
    template: Template | None = None

    def nested(
        self,
        items: Sequence[Node],
        module: str = "",
        owner: str = "",
        *,
        in_trait: bool = False,
        items_only: bool = False,
    ) -> _Scope:
        """A scope inside this one, inside the same template if this one is in one.

        ``module``: the inline module it is, if it is one (``module x``): its title, and the
        last step of its path.
        """
        title, path = (module, (*self.path, module)) if module else (self.title, self.path)
        return _Scope(items, title, path, owner, in_trait, items_only, self.template)


def chunk_rust(path: str, data: bytes) -> list[Chunk]:
    """Cut one Rust file into symbol chunks.

    Args:
        path: the file's repository-relative path (names the crate or module, and messages).
        data: the file's bytes.

    Raises:
        Unchunkable: the file is generated, or has no declaration that parses.
    """
    lines = SourceLines(data)
    root = parse("rust", lines, extern_item_qualifiers).root_node
    top = root.children
    leading = []
    for node in top:
        if node.type not in _COMMENTS:
            break
        leading.append(text_of(node))
    if looks_generated("\n".join(leading)):
        raise Unchunkable(f"{path} is generated (its header says so)")

    symbols = _walk(_Scope(top, _file_title(path)), lines)
    return lines.chunks_of(readable(symbols, root, lines, "Rust"))


def _file_title(path: str) -> str:
    """``crate x`` for ``x/src/lib.rs``; plain ``crate`` for a crate at the repository root.

    The crate's own name is in ``Cargo.toml``, another file: a file's chunks are reused for
    as long as its bytes are unchanged (the indexer's fingerprint), so they may depend on
    nothing but those bytes and the path.
    """
    parts = path.split("/")
    stem = parts[-1].rsplit(".", 1)[0]
    if stem in ("lib", "main") and len(parts) >= 3 and parts[-2] == "src":
        return f"crate {parts[-3]}"
    if stem in ("lib", "main"):
        return "crate"
    if stem == "mod" and len(parts) >= 2:
        return f"module {parts[-2]}"
    return f"module {stem}"


def _inner_doc(node: Node) -> bool:
    return node.type in _COMMENTS and node.child_by_field_name("inner") is not None


def _attaches(node: Node) -> bool:
    """Comments and outer attributes directly above an item belong to its chunk."""
    return node.type == "attribute_item" or (node.type in _COMMENTS and not _inner_doc(node))


def _public(item: Node) -> bool:
    """``pub`` without a restriction: ``pub(crate)`` is as internal as no ``pub`` at all."""
    return any(c.type == "visibility_modifier" and text_of(c) == "pub" for c in item.children)


def attributes_above(items: Sequence[Node], index: int) -> list[Node]:
    """The outer attributes of ``items[index]``: those above it, past comments and blank lines.

    An attribute belongs to the next item however far below it stands, as the compiler reads
    it; a doc comment's reach (``doc_start``) stops at a blank line, an attribute's does not.
    """
    out = []
    j = index - 1
    while j >= 0 and items[j].type in ("attribute_item", *_COMMENTS):
        if items[j].type == "attribute_item":
            out.append(items[j])
        j -= 1
    return out


def attribute_named(attribute_item: Node, name: str) -> Node | None:
    """The attribute of ``#[name...]`` or ``#![name...]``; ``None`` for others."""
    attribute = next((c for c in attribute_item.children if c.type == "attribute"), None)
    if attribute is None or attribute.child_count == 0 or text_of(attribute.child(0)) != name:
        return None
    return attribute


def _arguments(attribute_item: Node, name: str) -> Node | None:
    """The bracketed arguments of ``#[name(...)]`` or ``#![name(...)]``; ``None`` for others."""
    attribute = attribute_named(attribute_item, name)
    return attribute.child_by_field_name("arguments") if attribute else None


def hides_from_docs(attribute_item: Node) -> bool:
    """``#[doc(hidden)]`` or ``#![doc(hidden)]``, alone or among other ``doc`` arguments."""
    arguments = _arguments(attribute_item, "doc")
    if arguments is None:
        return False
    return any(c.type == "identifier" and text_of(c) == "hidden" for c in arguments.children)


def compiled_only_for_tests(attribute_item: Node) -> bool:
    """``#[cfg(...)]`` whose item is compiled only for tests, or for no target at all.

    ``cfg(test)``, clap's ``cfg(all(test, feature = "suggestions"))``, and
    ``cfg(all(any(unix, windows), test))``; not ``cfg(not(test))`` or ``cfg(any(test, ...))``,
    compiled into the library too.
    """
    arguments = _arguments(attribute_item, "cfg")
    return arguments is not None and only_for_tests(text_of(arguments)[1:-1])


def compiled_for_no_target(attribute_item: Node) -> bool:
    """``#[cfg(...)]`` whose item no target compiles, tests or not: ``cfg(all(unix, windows))``."""
    arguments = _arguments(attribute_item, "cfg")
    return arguments is not None and for_no_target(text_of(arguments)[1:-1])


def why_hidden(attributes: Sequence[Node]) -> str:
    """Why attributes leave an item out (``HIDDEN``, ``NO_TARGET``, ``TEST_ONLY``), or ``""``."""
    if any(hides_from_docs(a) for a in attributes):
        return HIDDEN
    if any(compiled_for_no_target(a) for a in attributes):
        return NO_TARGET
    if any(compiled_only_for_tests(a) for a in attributes):
        return TEST_ONLY
    return ""


def why_hidden_at_top(items: Sequence[Node]) -> str:
    """Why a module whose top says ``#![doc(hidden)]`` or ``#![cfg(test)]`` is left out."""
    return why_hidden([i for i in items if i.type == "inner_attribute_item"])


def _module_docs(items: Sequence[Node]) -> list[Node]:
    """The module's ``//!`` comments: those before its first item.

    Blank lines, plain comments and inner attributes may stand between them: a crate often
    splices files into its docs with ``#![doc = include_str!(...)]`` between ``//!`` lines.
    """
    docs = []
    for node in items:
        if _inner_doc(node):
            docs.append(node)
        # An unnamed node is punctuation (an inline module's braces), not an item.
        elif node.is_named and node.type not in (*_COMMENTS, "inner_attribute_item"):
            break
    return docs


def _walk(file_scope: _Scope, lines: SourceLines) -> Iterator[Symbol]:
    """Every kept symbol, walking nested modules, traits and impls without recursion.

    The crate's own macro templates are read once the file's other items are: all of them
    are blanked in one copy of the file (``_templates``).
    """
    pending = [file_scope]
    macros = _Macros()
    while pending or macros.defined:
        if not pending:
            pending.extend(_templates(macros, lines))
            macros.defined = []
            continue
        scope = pending.pop()
        # ``#![doc(hidden)]`` hides the module it opens, everything in it included, and a
        # test-only ``#![cfg(...)]`` compiles none of it into the library.
        if why_hidden_at_top(scope.items):
            continue
        docs = _module_docs(scope.items)
        if docs and not scope.owner and not scope.items_only:
            title = scope.title
            first = lines.line_of(docs[0].start_byte)
            last = lines.last_line_of(docs[-1].start_byte, docs[-1].end_byte)
            yield Symbol(title, title, scope.path or (title,), first, last)
        template = scope.template
        for index, item in enumerate(scope.items):
            if template is None:
                yield from _item(scope, index, item, lines, pending, macros)
            else:
                symbols = _item(scope, index, item, template.lines, pending, macros)
                yield from filter(template.readable, symbols)


def _item(
    scope: _Scope,
    index: int,
    item: Node,
    lines: SourceLines,
    pending: list[_Scope],
    macros: _Macros,
) -> Iterator[Symbol]:
    kind = item.type
    if kind in _COMMENTS or kind == "attribute_item":
        # Nothing of its own; it belongs to the item below it. Looking above each of a long
        # doc comment's lines for that item's attributes would cost the square of its length.
        return
    # rustdoc leaves a ``#[doc(hidden)]`` item out of the API (anyhow's ``__private`` module,
    # a macro's helpers), and with it a hidden module's, trait's or impl's items; so is an
    # item the library never compiles (``#[cfg(test)] pub fn fixture()``, or a ``cfg`` no
    # target meets), whatever it is: a module, a call and all it wraps, an ``impl``, a macro.
    attributes = attributes_above(scope.items, index)
    hidden = bool(why_hidden(attributes))
    if _members_unindexed(item, hidden):
        # Not walked, its members not indexed: nor is what a macro writes into it.
        body = item.child_by_field_name("body")
        for call in body.children if body is not None else ():
            if call.type == "macro_invocation":
                macros.called(scope, call, "")
    if hidden:
        if kind == "macro_invocation" and scope.owner:
            # ``impl Foo { #[cfg(test)] fixtures!(); }``, or ``#[doc(hidden)]``: what it
            # writes is left out with the call, as a hidden call's items elsewhere are.
            macros.called(scope, item, "")
        return
    if scope.template and _named_by_metavariable(item, scope.template):
        # Its name is whatever the macro's caller passes: nothing to search it by. A module
        # so named still holds items with names of their own (regex's ``pub mod $name``).
        body = item.child_by_field_name("body") if kind == "mod_item" else None
        if body is not None:
            pending.append(scope.nested(body.children, items_only=True))
        return
    if scope.template and not scope.owner and _spliced_member(item):
        return  # a member of whatever ``impl`` its caller writes it into: no owner to name
    if kind in ("function_item", "function_signature_item"):
        if scope.in_trait or _public(item):
            yield _symbol(scope, index, item, lines, _signature_end(item, lines))
    elif kind == "associated_type" and not scope.in_trait:
        # ``pub type Handle;`` in an extern block, its ``pub`` parsed as spaces (``rust_newer``).
        visibility = foreign_type_visibility(item, lines.data)
        if visibility is not None:
            last = _last_line(item, lines)
            yield _symbol(scope, index, item, lines, last, since=lines.line_of(visibility))
    elif kind in _WHOLE_ITEMS or kind == "associated_type":
        if scope.in_trait or _public(item):
            yield _symbol(scope, index, item, lines, _last_line(item, lines))
    elif kind == "const_item":  # every constant, as in Go: its value answers "the default?"
        exported = scope.in_trait or _public(item)
        yield _symbol(scope, index, item, lines, _last_line(item, lines), exported=exported)
    elif kind == "static_item" and _public(item):
        yield _symbol(scope, index, item, lines, _last_line(item, lines))
    elif kind == "trait_item" and _public(item):
        yield _symbol(scope, index, item, lines, _signature_end(item, lines))
        body = item.child_by_field_name("body")
        name = text_of(item.child_by_field_name("name"))
        if body is not None:
            pending.append(scope.nested(body.children, owner=name, in_trait=True))
    elif kind == "impl_item" and item.child_by_field_name("trait") is None:
        body = item.child_by_field_name("body")
        owner = _type_name(item.child_by_field_name("type"))
        if body is not None and owner:
            pending.append(scope.nested(body.children, owner=owner))
    elif kind == "mod_item" and not scope.owner:
        module = f"module {text_of(item.child_by_field_name('name'))}"
        # The docs above ``pub mod x;`` or ``pub mod x {`` (regex documents ``bytes`` so);
        # an inline module's ``//!`` docs, if it has them, are its scope's own chunk.
        if _public(item) and doc_start(scope.items, index, lines, _attaches) < lines.line_of(
            item.start_byte
        ):
            yield _symbol(scope, index, item, lines, _signature_end(item, lines), module)
        body = item.child_by_field_name("body")
        if body is not None:
            pending.append(scope.nested(body.children, module))
    elif kind == "foreign_mod_item":
        # ``extern "C" { pub fn strlen(...); }``: a binding's ``pub`` items are the crate's API.
        body = item.child_by_field_name("body")
        if body is not None:
            pending.append(scope.nested(body.children, items_only=True))
    elif kind == "macro_definition":
        if any(attribute_named(a, "macro_export") for a in attributes):
            yield _symbol(scope, index, item, lines, lines.line_of(item.start_byte))
        elif scope.template is None:
            macros.defined.append((scope, item))
    elif kind == "macro_invocation" and scope.owner:
        macros.called(scope, item, "" if scope.in_trait else scope.owner)
    elif kind == "macro_invocation":
        for inside in macro_items(item, lines):  # a group per ``cfg_if!`` branch
            if not inside.only_for_tests:
                pending.append(scope.nested(inside.items, items_only=True))


def _members_unindexed(item: Node, hidden: bool) -> bool:
    """Whether ``item`` is an ``impl`` or trait whose members are not indexed.

    A trait's implementation (its documentation is the trait's), a hidden ``impl``, and a
    hidden or private trait. ``hidden``: whether the item's attributes hide it.
    """
    if item.type == "impl_item":
        return hidden or item.child_by_field_name("trait") is not None
    return item.type == "trait_item" and (hidden or not _public(item))


def _templates(macros: _Macros, lines: SourceLines) -> Iterator[_Scope]:
    """The items a crate's own ``macro_rules!`` write out: a scope per rule of each macro.

    Each rule's template is read as items (``rust_templates``). An exported macro writes into
    its callers' crates, so its template is not this crate's API and is never among
    ``macros``.

    A macro its module calls inside one type's ``impl`` writes that type's members; one
    called inside several types', or inside an ``impl`` or trait whose members are not
    indexed, is left unread, as no one owner can be named for what it writes.
    """
    kept = [
        (scope, owner, macro)
        for scope, macro in macros.defined
        if len(owners := macros.owners(scope, macro)) < 2 and "" not in owners
        for owner in [next(iter(owners), "")]
    ]
    read = read_templates([macro for _, _, macro in kept], lines)
    for (scope, owner, _), templates in zip(kept, read, strict=True):
        for template in templates:
            yield _Scope(
                template.items, scope.title, scope.path, owner, items_only=True, template=template
            )


_SELF_TYPE = re.compile(rb"\bSelf\b")


def _spliced_member(item: Node) -> bool:
    """Whether a template's item can only stand in an ``impl``: it takes ``self`` or names ``Self``.

    Written at a template's top level, such an item is spliced into whatever ``impl`` the macro
    is called in (``impl u32 { int_impl!() }``), not declared where the template stands. A
    function names ``Self`` anywhere in its signature: its generics' bounds and its ``where``
    clause (``where Self: Sized``) as well as its parameters and result.
    """
    if item.type in ("function_item", "function_signature_item"):
        parameters = item.child_by_field_name("parameters")
        if parameters is not None and any(c.type == "self_parameter" for c in parameters.children):
            return True
        signature = [
            item.child_by_field_name("type_parameters"),
            parameters,
            item.child_by_field_name("return_type"),
            *(c for c in item.children if c.type == "where_clause"),
        ]
    elif item.type in ("const_item", "static_item"):
        signature = [item.child_by_field_name("type")]
    else:
        return False
    return any(p is not None and _SELF_TYPE.search(p.text or b"") for p in signature)


def _named_by_metavariable(item: Node, template: Template) -> bool:
    """Whether a template's item (or the type an ``impl`` is for) is named ``$something``.

    An ``impl`` is for the type its path ends in: ``impl $crate::Version`` is ``Version``'s,
    ``$crate`` being only the defining crate's path; ``impl &$t`` is the caller's type's.
    """
    if item.type == "impl_item":
        name = _type_name_node(item.child_by_field_name("type"))
    else:
        name = item.child_by_field_name("name")
    return template.named_by_caller(name)


def _symbol(
    scope: _Scope,
    index: int,
    item: Node,
    lines: SourceLines,
    last: int,
    title: str = "",
    *,
    exported: bool = True,
    since: int | None = None,
) -> Symbol:
    """The item's symbol, from its docs' first line to ``last``; ``since``: see ``doc_start``."""
    name = text_of(item.child_by_field_name("name"))
    symbol = title or (f"{scope.owner}.{name}" if scope.owner else name)
    first = doc_start(scope.items, index, lines, _attaches, since)
    names = (scope.owner, name) if scope.owner else (name,)
    return Symbol(symbol, symbol, (*scope.path, symbol), first, last, names, exported=exported)


def _last_line(node: Node, lines: SourceLines) -> int:
    return lines.last_line_of(node.start_byte, node.end_byte)


def _signature_end(node: Node, lines: SourceLines) -> int:
    """The line a function's body or a trait's item list opens on, else the item's last."""
    body = node.child_by_field_name("body")
    if body is not None:
        return lines.line_of(body.start_byte)
    return _last_line(node, lines)


def _type_name(node: Node | None) -> str:
    """``Foo`` for ``Foo``, ``Foo<T>``, ``crate::x::Foo``, ``&Foo``, ``dyn Foo + Send``.

    An ``impl dyn Trait`` block adds methods to the trait object (``downcast_ref`` on
    ``dyn Error``); rustdoc lists them on the trait's page, so they are the trait's.
    """
    name = _type_name_node(node)
    return "" if name is None else text_of(name)


def _type_name_node(node: Node | None) -> Node | None:
    """The node of the name ``_type_name`` reads, or ``None``."""
    for _ in range(8):  # wrappers nest a few levels deep at most
        if node is None:
            return None
        if node.type in ("type_identifier", "primitive_type"):
            return node
        if node.type == "scoped_type_identifier":
            node = node.child_by_field_name("name")
        elif node.type == "generic_type":
            node = node.child_by_field_name("type")
        elif node.type == "dynamic_type":
            node = node.child_by_field_name("trait")
        elif node.type == "bounded_type":  # ``dyn Foo + Send``: the bounds follow the trait
            node = node.named_children[0] if node.named_children else None
        else:
            node = node.child_by_field_name("type")
    return None
