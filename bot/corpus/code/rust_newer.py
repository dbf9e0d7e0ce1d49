"""Rust syntax newer than the grammar, found in the tree it left errors in (pure).

Rust 2024 lets an item of an ``unsafe extern`` block say whether calling or reading it is
safe: ``pub safe fn abs(x: i32) -> i32;``, ``pub unsafe static X: u8;``. The grammar reads
``unsafe fn`` there but neither ``safe`` nor ``unsafe static``: it makes the qualifier an
error, and the item it stands in is left out (``syntax.readable``), or the whole file refused
when the block holds all its API, as a ``-sys`` crate's bindings do. Each such qualifier is
parsed as as many spaces (``syntax.parse``), so the item is read as the older ``pub fn`` it
declares as far as the chunker cares, at the offsets and lines the file has; its chunk is
cut from the file's own lines, qualifier included.
"""

from __future__ import annotations

from tree_sitter import Node

from bot.corpus.code.syntax import errors

_QUALIFIERS = (b"safe", b"unsafe")
_COMMENTS = ("line_comment", "block_comment")


def extern_item_qualifiers(root: Node) -> list[Node]:
    """The ``safe`` and ``unsafe`` qualifiers of extern block items the grammar read as errors.

    Only a qualifier that ends an error node, stands right before the ``fn`` or ``static``
    it qualifies (comments aside), and sits in an extern block's item list: an error
    anywhere else is no newer syntax this knows, and stands.
    """
    found = []
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


def _in_extern_block(error: Node) -> bool:
    """In an extern block's item list, or in the signature or ``static`` of an item there."""
    parent = error.parent
    if parent is not None and parent.type in ("function_signature_item", "static_item"):
        parent = parent.parent
    return (
        parent is not None
        and parent.type == "declaration_list"
        and parent.parent is not None
        and parent.parent.type == "foreign_mod_item"
    )


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
