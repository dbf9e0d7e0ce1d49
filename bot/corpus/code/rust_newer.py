"""Rust syntax newer than the grammar, found in the tree it left errors in (pure).

Rust 2024 lets an item of an ``unsafe extern`` block say whether calling or reading it is
safe: ``pub safe fn abs(x: i32) -> i32;``, ``pub unsafe static X: u8;``. The grammar reads
``unsafe fn`` there but neither ``safe`` nor ``unsafe static``: it makes the qualifier an
error, and the item it stands in is left out (``syntax.readable``), or the whole file refused
when the block holds all its API, as a ``-sys`` crate's bindings do. Each such qualifier is
parsed as as many spaces (``syntax.parse``), so the item is read as the older ``pub fn`` it
declares as far as the chunker cares, at the offsets and lines the file has; its chunk is
cut from the file's own lines, qualifier included.

A foreign type, ``pub type Handle;`` (nightly's ``extern_types``), meets the same end: the
grammar reads ``type Handle;`` there, as a trait's associated type, but not with a
visibility. That visibility is parsed as spaces too, and ``foreign_type_visibility`` finds it
again in the file's bytes, so the chunker can tell a ``pub`` type from a private one.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from bot.corpus.code.syntax import errors

_QUALIFIERS = (b"safe", b"unsafe")
_COMMENTS = ("line_comment", "block_comment")


def extern_item_qualifiers(root: Node) -> list[Node]:
    """The qualifiers of extern block items the grammar read as errors.

    A ``safe`` or ``unsafe`` that ends an error node and stands right before the ``fn`` or
    ``static`` it qualifies (comments aside), and the visibility before a foreign ``type``;
    each only in an extern block's item list: an error anywhere else is no newer syntax this
    knows, and stands.
    """
    found = _foreign_type_visibilities(root)
    for error in errors(root):
        if not error.children or not _in_extern_block(error):
            continue
        qualifier = error.children[-1]
        following = _following_token(error)
        if (
            qualifier.child_count == 0
            and qualifier.text in _QUALIFIERS
            and following is not None
            and following.type in ("fn", "static")
        ):
            found.append(qualifier)
    return found


def foreign_type_visibility(item: Node, data: bytes) -> int | None:
    """Where the ``pub`` of a foreign ``pub type Handle;`` starts in ``data``, else ``None``.

    ``item``: a ``type`` declaration the grammar read in an extern block's item list, once
    its visibility was parsed as spaces (``extern_item_qualifiers``); ``data``: the bytes it
    was parsed from, visibility included. ``pub(crate)`` is no ``pub``: ``None``.
    """
    parent = item.parent
    if item.type != "associated_type" or parent is None or not _foreign_items(parent):
        return None
    before = item.prev_sibling
    start = before.end_byte if before is not None else parent.start_byte
    visibility = _PUB.fullmatch(data, start, item.start_byte)
    return visibility.start(1) if visibility else None


_PUB = re.compile(rb"\s*(pub)\s+")


def _foreign_type_visibilities(root: Node) -> list[Node]:
    """The visibilities right before a ``type`` in extern blocks, where the parse has errors.

    ``pub type Handle;``: the grammar may make one error of it and its neighbours, give its
    ``pub`` to an item further down, or break up the block itself, leaving an error that
    holds its ``extern "C"`` and, after it, its items. So where the visibility stands in the
    tree says little; that it stands in an extern block, among errors, before ``type``, says
    enough. The error may run on past the block's closing brace: a ``pub type`` after that
    ``}`` is the module's own alias, and keeps its ``pub``.
    """
    found = []
    pending = [(root, False)]
    while pending:
        node, in_block = pending.pop()
        for child in node.children:
            in_block = (in_block or child.type == "extern_modifier") and child.type != "}"
            if child.type in _VISIBILITIES:
                following = _following_token(child) if in_block else None
                if following is not None and following.type == "type":
                    found.append(child)
            elif child.has_error:
                pending.append((child, in_block))
    return found


# A visibility, or a ``pub`` the parse left bare in an error.
_VISIBILITIES = ("visibility_modifier", "pub")


def _foreign_items(node: Node) -> bool:
    """Whether ``node`` is an extern block's item list."""
    return (
        node.type == "declaration_list"
        and node.parent is not None
        and node.parent.type == "foreign_mod_item"
    )


def _in_extern_block(error: Node) -> bool:
    """In an extern block's item list, or in the signature or ``static`` of an item there."""
    parent = error.parent
    if parent is not None and parent.type in ("function_signature_item", "static_item"):
        parent = parent.parent
    return parent is not None and _foreign_items(parent)


def _following_token(node: Node) -> Node | None:
    """The first token after ``node`` in the file, comments passed over."""
    current: Node | None = node
    while current is not None:
        sibling = current.next_sibling
        if sibling is None:
            current = current.parent
            continue
        current = sibling
        if current.type in _COMMENTS:
            continue
        while current.child_count:
            current = current.children[0]
        return current
    return None
