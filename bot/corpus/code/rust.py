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
- the ``pub`` items of an ``extern "C" { ... }`` block, a foreign function's signature or a
  foreign ``static``, are chunks as those written in Rust are, Rust 2024's ``unsafe extern``
  blocks with their ``safe fn`` and ``unsafe static`` items included (``rust_newer``);
- modules compiled only for tests (``#[cfg(test)]``, ``#[cfg(all(test, ...))]``, any
  ``cfg`` that cannot hold without ``test``: ``bot.corpus.code.rust_cfg``; a module or file
  saying so at its top, ``#![cfg(test)]``, too) and files whose header says they were
  generated are skipped, and so is whatever ``#[doc(hidden)]`` hides from rustdoc: the
  item, and all a hidden module, trait or impl holds (a module hidden by ``#![doc(hidden)]``
  at its top too); a file cannot tell that the ``mod`` naming it elsewhere is hidden, so
  the indexer leaves such a file out before it is chunked (``bot.corpus.code.rust_modules``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from tree_sitter import Node

from bot.corpus.chunk import Chunk
from bot.corpus.code.rust_cfg import only_for_tests
from bot.corpus.code.rust_newer import extern_item_qualifiers
from bot.corpus.code.source import SourceLines, Symbol, Unchunkable, looks_generated
from bot.corpus.code.syntax import doc_start, parse, parse_between, readable, text_of

_COMMENTS = ("line_comment", "block_comment")
_WHOLE_ITEMS = ("struct_item", "enum_item", "union_item", "type_item")


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
    """``#[cfg(...)]`` whose item is compiled only for tests.

    ``cfg(test)``, clap's ``cfg(all(test, feature = "suggestions"))``, and
    ``cfg(all(any(unix, windows), test))``; not ``cfg(not(test))`` or ``cfg(any(test, ...))``,
    compiled into the library too.
    """
    arguments = _arguments(attribute_item, "cfg")
    return arguments is not None and only_for_tests(text_of(arguments)[1:-1])


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
    """Every kept symbol, walking nested modules, traits and impls without recursion."""
    pending = [file_scope]
    while pending:
        scope = pending.pop()
        # ``#![doc(hidden)]`` hides the module it opens, everything in it included, and a
        # test-only ``#![cfg(...)]`` compiles none of it into the library.
        if any(
            i.type == "inner_attribute_item" and (hides_from_docs(i) or compiled_only_for_tests(i))
            for i in scope.items
        ):
            continue
        docs = _module_docs(scope.items)
        if docs and not scope.owner and not scope.items_only:
            title = scope.title
            first = lines.line_of(docs[0].start_byte)
            last = lines.last_line_of(docs[-1].start_byte, docs[-1].end_byte)
            yield Symbol(title, title, scope.path or (title,), first, last)
        for index, item in enumerate(scope.items):
            yield from _item(scope, index, item, lines, pending)


def _item(
    scope: _Scope, index: int, item: Node, lines: SourceLines, pending: list[_Scope]
) -> Iterator[Symbol]:
    kind = item.type
    if kind in _COMMENTS or kind == "attribute_item":
        # Nothing of its own; it belongs to the item below it. Looking above each of a long
        # doc comment's lines for that item's attributes would cost the square of its length.
        return
    # rustdoc leaves a ``#[doc(hidden)]`` item out of the API (anyhow's ``__private`` module,
    # a macro's helpers), and with it a hidden module's, trait's or impl's items.
    attributes = attributes_above(scope.items, index)
    if any(hides_from_docs(a) for a in attributes):
        return
    if kind in ("function_item", "function_signature_item"):
        if scope.in_trait or _public(item):
            yield _symbol(scope, index, item, lines, _signature_end(item, lines))
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
            pending.append(_Scope(body.children, scope.title, scope.path, name, in_trait=True))
    elif kind == "impl_item" and item.child_by_field_name("trait") is None:
        body = item.child_by_field_name("body")
        owner = _type_name(item.child_by_field_name("type"))
        if body is not None and owner:
            pending.append(_Scope(body.children, scope.title, scope.path, owner))
    elif kind == "mod_item" and not scope.owner:
        if any(compiled_only_for_tests(a) for a in attributes):
            return
        module = f"module {text_of(item.child_by_field_name('name'))}"
        # The docs above ``pub mod x;`` or ``pub mod x {`` (regex documents ``bytes`` so);
        # an inline module's ``//!`` docs, if it has them, are its scope's own chunk.
        if _public(item) and doc_start(scope.items, index, lines, _attaches) < lines.line_of(
            item.start_byte
        ):
            yield _symbol(scope, index, item, lines, _signature_end(item, lines), module)
        body = item.child_by_field_name("body")
        if body is not None:
            pending.append(_Scope(body.children, module, (*scope.path, module)))
    elif kind == "foreign_mod_item":
        # ``extern "C" { pub fn strlen(...); }``: a binding's ``pub`` items are the crate's API.
        body = item.child_by_field_name("body")
        if body is not None:
            pending.append(_Scope(body.children, scope.title, scope.path, items_only=True))
    elif kind == "macro_definition" and any(attribute_named(a, "macro_export") for a in attributes):
        yield _symbol(scope, index, item, lines, lines.line_of(item.start_byte))
    elif kind == "macro_invocation" and not scope.owner:
        inside = _macro_items(item, lines)
        if inside:
            pending.append(_Scope(inside, scope.title, scope.path, items_only=True))


def _macro_items(call: Node, lines: SourceLines) -> Sequence[Node]:
    """The items a macro call wraps in braces, or none when its body is not items.

    Crates declare much of their API inside macro calls: ``pin_project! { pub struct Sleep
    ... }``, or tokio's ``cfg_rt! { pub fn spawn ... }``, which only add attributes. The
    grammar sees a token tree there, so the text between the braces is parsed again on its
    own, keeping the file's offsets and lines. A body that does not parse as items
    (``bitflags!``'s own syntax, an expression) is not guessed at.
    """
    tree = next((c for c in call.children if c.type == "token_tree"), None)
    if tree is None or tree.child_count < 3 or tree.children[0].type != "{":
        return ()
    opening, closing = tree.children[0], tree.children[-1]
    root = parse_between("rust", lines, opening, closing, extern_item_qualifiers).root_node
    return () if root.has_error else root.children


def _symbol(
    scope: _Scope,
    index: int,
    item: Node,
    lines: SourceLines,
    last: int,
    title: str = "",
    *,
    exported: bool = True,
) -> Symbol:
    name = text_of(item.child_by_field_name("name"))
    symbol = title or (f"{scope.owner}.{name}" if scope.owner else name)
    first = doc_start(scope.items, index, lines, _attaches)
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
    for _ in range(8):  # wrappers nest a few levels deep at most
        if node is None:
            return ""
        if node.type in ("type_identifier", "primitive_type"):
            return text_of(node)
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
    return ""
