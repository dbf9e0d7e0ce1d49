"""The items a Rust macro call wraps, read by the chunker and the module resolver alike.

Crates declare much of their API inside macro calls that only wrap items:
``pin_project! { pub struct Sleep ... }``, tokio's ``cfg_rt! { pub fn spawn ... }`` and
``cfg_net! { pub mod net; }``, which add attributes. The grammar sees a token tree there,
so the text between the braces is parsed again on its own, keeping the file's offsets and
lines. A body that does not parse as items (``bitflags!``'s own syntax, an expression) is
not guessed at, with one exception: ``cfg_if!``'s chain of branches,

    cfg_if! {
        if #[cfg(unix)] { mod unix; pub use unix::*; }
        else if #[cfg(windows)] { ... }
        else { ... }
    }

each of whose braces holds items compiled when its ``cfg`` holds and no earlier one did.
A branch that only tests compile (``bot.corpus.code.rust_cfg``) says so, as a
``#[cfg(test)]`` item would; a chain written otherwise is not read at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from tree_sitter import Node

from bot.corpus.code.rust_cfg import for_no_target, only_for_tests
from bot.corpus.code.rust_newer import extern_item_qualifiers
from bot.corpus.code.source import SourceLines
from bot.corpus.code.syntax import parse_between, text_of


class Wrapped(NamedTuple):
    """Items a macro call wraps: all of its braces', or one ``cfg_if!`` branch's."""

    items: Sequence[Node]
    only_for_tests: bool = False  # a ``cfg_if!`` branch compiled only for tests, or for none
    for_no_target: bool = False  # a ``cfg_if!`` branch no target compiles, tests or not


def macro_items(call: Node, lines: SourceLines) -> list[Wrapped]:
    """The items a macro call wraps in braces, one group for each ``cfg_if!`` branch, or none."""
    tree = next((c for c in call.children if c.type == "token_tree"), None)
    if tree is None or tree.child_count < 3 or tree.children[0].type != "{":
        return []
    whole = _items_between(tree, lines)
    if whole is not None:
        return [Wrapped(whole)]
    # Comments between the branches (``// The Unix one.``) are no part of the chain.
    tokens = [c for c in tree.children[1:-1] if c.type not in ("line_comment", "block_comment")]
    branches = _cfg_if_branches(tokens)
    if branches is None:
        return []
    groups = []
    earlier: list[str] = []
    for predicate, body in branches:
        # A branch is compiled when its own cfg holds and none of those before it did; the
        # first has a cfg, so none is compiled unconditionally.
        conditions = [f"not({p})" for p in earlier] + ([predicate] if predicate else [])
        if predicate:
            earlier.append(predicate)
        items = _items_between(body, lines)
        if items is not None:
            condition = f"all({', '.join(conditions)})"
            # ``only_for_tests`` holds for a cfg no target meets too.
            groups.append(Wrapped(items, only_for_tests(condition), for_no_target(condition)))
    return groups


def _items_between(tree: Node, lines: SourceLines) -> Sequence[Node] | None:
    """What a brace-delimited token tree holds, if it parses as items."""
    opening, closing = tree.children[0], tree.children[-1]
    root = parse_between("rust", lines, opening, closing, extern_item_qualifiers).root_node
    return None if root.has_error else root.children


def _cfg_if_branches(tokens: Sequence[Node]) -> list[tuple[str, Node]] | None:
    """``cfg_if!``'s branches, each its ``cfg`` predicate (``""`` for ``else``) and braces.

    ``None`` when the tokens are not ``if #[cfg(P)] { ... }``, then any number of ``else if
    #[cfg(P)] { ... }``, and at most one ``else { ... }`` last.
    """
    branches: list[tuple[str, Node]] = []
    at = 0
    while at < len(tokens):
        if branches:
            if tokens[at].type != "identifier" or text_of(tokens[at]) != "else":
                return None
            at += 1
            if at < len(tokens) and _is_braces(tokens[at]):
                branches.append(("", tokens[at]))
                return branches if at + 1 == len(tokens) else None
        if at + 3 >= len(tokens) or tokens[at].type != "if" or tokens[at + 1].type != "#":
            return None
        predicate = _cfg_predicate(tokens[at + 2])
        if predicate is None or not _is_braces(tokens[at + 3]):
            return None
        branches.append((predicate, tokens[at + 3]))
        at += 4
    return branches or None


def _cfg_predicate(attribute: Node) -> str | None:
    """``P`` for the token tree ``[cfg(P)]``, else ``None``."""
    text = text_of(attribute)
    if not (text.startswith("[") and text.endswith("]")):
        return None
    inner = text[1:-1].strip()
    if not inner.startswith("cfg"):
        return None
    arguments = inner[len("cfg") :].strip()
    if not (arguments.startswith("(") and arguments.endswith(")")):
        return None
    return arguments[1:-1].strip() or None


def _is_braces(node: Node) -> bool:
    return node.type == "token_tree" and node.child_count >= 2 and node.children[0].type == "{"
