"""Which Rust files hold modules their parent hides from rustdoc or compiles only for tests.

A file cannot tell how the ``mod`` naming it is declared: serde's ``src/private/mod.rs`` is
as ordinary as any, and only ``src/lib.rs`` says ``#[doc(hidden)] #[path =
"private/mod.rs"] pub mod __private;``. So each file's ``mod name;`` declarations are read
(``module_declarations``) and resolved across the tree (``hidden_files``), as rustc finds a
module's file:

- in a file that owns its directory (``lib.rs``, ``main.rs``, ``mod.rs``, or a file loaded
  through ``#[path]``), ``mod name;`` is ``name.rs`` or ``name/mod.rs`` beside it; in any
  other file ``dir/foo.rs`` it is under ``dir/foo/``; inline modules (``mod a { mod b; }``)
  add their names as directories, or their own ``#[path]`` in place of the name;
- ``#[path = "p"]`` is relative to the declaring file's directory, or, inside inline
  modules, to the directory their nested files would sit in.

A module declared with ``#[doc(hidden)]``, or a ``cfg`` that cannot hold without ``test``
(``bot.corpus.code.rust_cfg``), is hidden, and with it every module it declares and every
file under its own directory (``private/`` for ``private/mod.rs``, ``tests/`` for
``tests.rs``), declared or not, but for those of another crate (a ``Cargo.toml`` there) or
that a plain ``mod`` names. A file whose top says ``#![doc(hidden)]`` or ``#![cfg(test)]``
hides the modules it declares likewise.

A file no ``mod`` names, a crate root elsewhere than ``lib.rs`` or ``main.rs``
(``src/bin/tool.rs``), resolves its modules beside itself when nothing sits under its own
name; a module's file never does. Declarations a macro call wraps in braces are read as the
chunker reads that call's items (``bot.corpus.code.rust_wrappers``): tokio's ``cfg_rt! {
pub mod runtime; }``, or each branch of a ``cfg_if!`` chain, one that only tests compile (or
no target) hidden as a ``#[cfg(test)]`` module is; the call's own attributes hold for each of
them. So are those a ``macro_rules!`` template of the crate's own writes
(``bot.corpus.code.rust_templates``), read once as if written where the macro is defined,
whose attributes hold for them likewise; a module the caller names (``mod $name;``) is not
looked for.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from tree_sitter import Node

from bot.corpus.code.rust import (
    HIDDEN,
    NO_TARGET,
    TEST_ONLY,
    attribute_named,
    attributes_above,
    why_hidden,
    why_hidden_at_top,
)
from bot.corpus.code.rust_templates import Template, read_templates
from bot.corpus.code.rust_wrappers import Wrapped, macro_items
from bot.corpus.code.source import SourceLines
from bot.corpus.code.syntax import parse, text_of

__all__ = [
    "HIDDEN",
    "NO_TARGET",
    "TEST_ONLY",
    "ModuleDeclaration",
    "hidden_files",
    "module_declarations",
]

# Most files declare no module in a file of its own: they are not parsed at all.
_OUT_OF_LINE_MOD = re.compile(rb"\bmod\s+(?:r#)?[A-Za-z_][A-Za-z0-9_]*\s*;")
_OWNING_NAMES = ("lib.rs", "main.rs", "mod.rs")


@dataclass(frozen=True, slots=True)
class ModuleDeclaration:
    """``mod name;``: a module whose items sit in a file of their own.

    ``inline``: the inline modules it is written in; ``inline_paths``: their ``#[path]``s,
    one each, when any has one. ``path``: its own ``#[path]``, if any. ``hidden``: why the
    module is left out (``HIDDEN``, ``NO_TARGET``, ``TEST_ONLY``), or ``""``.
    """

    name: str
    inline: tuple[str, ...] = ()
    path: str | None = None
    hidden: str = ""
    inline_paths: tuple[str | None, ...] = ()


class _Items(NamedTuple):
    """Items being read for declarations, and where they stand."""

    items: Sequence[Node]
    inline: tuple[str, ...] = ()  # the inline modules they are in
    paths: tuple[str | None, ...] = ()  # those modules' ``#[path]``s
    hidden: str = ""  # why all of them are left out, or ""
    template: Template | None = None  # the ``macro_rules!`` template they are written in


def module_declarations(data: bytes) -> list[ModuleDeclaration]:
    """The ``mod name;`` declarations of one Rust file's bytes, in inline modules too."""
    if not _OUT_OF_LINE_MOD.search(data):
        return []
    lines = SourceLines(data)
    root = parse("rust", lines).root_node
    found = []
    pending = [_Items(root.children, hidden=why_hidden_at_top(root.children))]
    # The crate's own macros, whose templates are read once the file's other items are.
    macros: list[tuple[Node, _Items]] = []
    while pending or macros:
        if not pending:
            pending.extend(_template_items(macros, lines))
            macros = []
            continue
        where = pending.pop()
        for index, item in enumerate(where.items):
            if item.type not in ("mod_item", "macro_invocation", "macro_definition"):
                continue
            attributes = attributes_above(where.items, index)
            why = where.hidden or why_hidden(attributes)
            if item.type == "macro_definition":
                # An exported macro writes into its callers' crates, as the chunker reads it.
                exported = any(attribute_named(a, "macro_export") for a in attributes)
                if where.template is None and not exported:
                    macros.append((item, where._replace(hidden=why)))
                continue
            if item.type == "macro_invocation":
                # ``cfg_rt! { pub mod runtime; }``: read as the chunker reads it, and what the
                # call's attributes say of it (``#[cfg(test)]``) holds for all it wraps.
                template_lines = where.template.lines if where.template else lines
                pending.extend(
                    where._replace(items=group.items, hidden=why or _why_left_out(group))
                    for group in macro_items(item, template_lines)
                )
                continue
            name_node = item.child_by_field_name("name")
            if where.template is not None and where.template.named_by_caller(name_node):
                continue  # ``mod $name;``: the caller names its file, and its modules' folder
            name = text_of(name_node).removeprefix("r#")
            body = item.child_by_field_name("body")
            path = _path_of(attributes)
            if body is not None:
                nested = body.children
                pending.append(
                    where._replace(
                        items=nested,
                        inline=(*where.inline, name),
                        paths=(*where.paths, path),
                        hidden=why or why_hidden_at_top(nested),
                    )
                )
            else:
                inline_paths = where.paths if any(p is not None for p in where.paths) else ()
                found.append(ModuleDeclaration(name, where.inline, path, why, inline_paths))
    return found


def _template_items(macros: Sequence[tuple[Node, _Items]], lines: SourceLines) -> list[_Items]:
    """The items of each rule of the crate's own macros, as if written where each macro is.

    A ``mod`` a macro writes is found where the macro is called; a crate's own macro is
    called in the module that defines it, and the chunker reads its items there too.
    """
    read = read_templates([macro for macro, _ in macros], lines)
    return [
        where._replace(items=template.items, template=template)
        for (_, where), templates in zip(macros, read, strict=True)
        for template in templates
    ]


def _why_left_out(group: Wrapped) -> str:
    """Why a ``cfg_if!`` branch's modules are left out (``NO_TARGET``, ``TEST_ONLY``), or ``""``."""
    if group.for_no_target:
        return NO_TARGET
    return TEST_ONLY if group.only_for_tests else ""


def hidden_files(
    declarations: Mapping[str, Sequence[ModuleDeclaration]],
    paths: Collection[str],
    crates: Collection[str] = (),
) -> dict[str, str]:
    """The files among ``paths`` holding hidden modules, each with the reason, for the log.

    Args:
        declarations: each Rust file's ``module_declarations``, by repository-relative path.
        paths: every Rust file that may be indexed.
        crates: the directories holding a ``Cargo.toml``, whose files no module of another
            crate's holds.
    """
    loaded_by_path = {
        target
        for file, declared in declarations.items()
        for d in declared
        if d.path is not None
        for target in _candidates(file, d, frozenset())
    }
    # A file some ``mod`` names is a module, never a crate root of its own.
    named = {
        target
        for file, declared in declarations.items()
        for d in declared
        for target in _candidates(file, d, loaded_by_path)
    }

    def resolved(file: str, declaration: ModuleDeclaration) -> Iterator[str]:
        return _resolved(file, declaration, loaded_by_path, named, paths)

    # A file a plain ``mod`` in a read file names is compiled, whatever else hides it (under
    # a hidden module's directory, or tested by a binary the library shares it with); each
    # file read again may name more.
    compiled: set[str] = set()
    while True:
        hidden = _hidden_from(declarations, paths, crates, resolved, loaded_by_path, compiled)
        named_plainly = {
            target
            for file, declared in declarations.items()
            if file not in hidden
            for d in declared
            if not d.hidden
            for target in resolved(file, d)
        }
        if named_plainly <= compiled:
            return hidden
        compiled |= named_plainly


def _hidden_from(
    declarations: Mapping[str, Sequence[ModuleDeclaration]],
    paths: Collection[str],
    crates: Collection[str],
    resolved: Callable[[str, ModuleDeclaration], Iterator[str]],
    loaded_by_path: Collection[str],
    compiled: Collection[str],
) -> dict[str, str]:
    """The files hidden modules reach, through their declarations and directories."""
    hidden: dict[str, str] = {}
    # (a hidden module's file, the file declaring it, why it is hidden)
    pending = [
        (target, file, f"its module is {d.hidden} (mod {d.name} in {file})")
        for file, declared in declarations.items()
        for d in declared
        if d.hidden
        for target in resolved(file, d)
    ]
    while pending:
        file, parent, reason = pending.pop()
        if file in hidden or file in compiled:
            continue
        hidden[file] = reason
        pending.extend(
            (target, file, reason)
            for d in declarations.get(file, ())
            for target in resolved(file, d)
        )
        below = _swept_directory(file, parent, loaded_by_path)
        if below:
            other_crates = tuple(f"{c}/" for c in crates if f"{c}/".startswith(below))
            pending.extend(
                (p, file, reason)
                for p in paths
                if p.startswith(below) and not p.startswith(other_crates)
            )
    return hidden


def _swept_directory(file: str, parent: str, loaded_by_path: Collection[str]) -> str:
    """The directory (ending in ``/``) all of whose files a hidden module's file hides.

    ``private/`` for ``private/mod.rs``, ``tests/`` for ``tests.rs``; none for a file loaded
    through ``#[path]`` under another name, or a crate root, whose directory holds its
    siblings, nor for a directory holding the declaring file.
    """
    name = posixpath.basename(file)
    if name in ("lib.rs", "main.rs") or (file in loaded_by_path and name != "mod.rs"):
        return ""
    below = _nested_directory(file, loaded_by_path) + "/"
    return "" if parent.startswith(below) or below == "/" else below


def _resolved(
    file: str,
    declaration: ModuleDeclaration,
    loaded_by_path: Collection[str],
    named: Collection[str],
    paths: Collection[str],
) -> Iterator[str]:
    """The file a declaration names, if it is among ``paths``."""
    for candidate in _candidates(file, declaration, loaded_by_path):
        if candidate in paths:
            yield candidate
            return
    # A crate root other than lib.rs or main.rs (src/bin/tool.rs) owns its directory; a
    # module file whose submodule is not indexed (under tests/) does not, and its sibling of
    # that name is another module.
    if posixpath.basename(file) not in _OWNING_NAMES and file not in named:
        for candidate in _candidates(file, declaration, {file}):
            if candidate in paths:
                yield candidate
                return


def _candidates(
    file: str, declaration: ModuleDeclaration, loaded_by_path: Collection[str]
) -> list[str]:
    """Where rustc looks for a declared module's file, in order.

    As rustc does, a file not owning its directory (``foo.rs``) adds ``foo/`` only in front
    of the first module name: a ``#[path]`` written at its top, on ``mod name;`` or on an
    inline module, is relative to its own directory, and an inline module's ``#[path]``
    names the directory of the modules it holds.
    """
    directory = posixpath.dirname(file)
    owner = "" if _owns_directory(file, loaded_by_path) else _stem(file)
    paths = declaration.inline_paths or (None,) * len(declaration.inline)
    for name, path in zip(declaration.inline, paths, strict=True):
        if path is not None:
            directory = posixpath.normpath(posixpath.join(directory, path))
        else:
            directory = posixpath.join(directory, owner, name)
        owner = ""
    if declaration.path is not None:
        return [posixpath.normpath(posixpath.join(directory, declaration.path))]
    name = declaration.name
    nested = posixpath.join(directory, owner)
    return [posixpath.join(nested, f"{name}.rs"), posixpath.join(nested, name, "mod.rs")]


def _nested_directory(file: str, loaded_by_path: Collection[str]) -> str:
    """The directory the files of a file's ``mod name;`` declarations sit in."""
    directory = posixpath.dirname(file)
    if _owns_directory(file, loaded_by_path):
        return directory
    return posixpath.join(directory, _stem(file))


def _owns_directory(file: str, loaded_by_path: Collection[str]) -> bool:
    return posixpath.basename(file) in _OWNING_NAMES or file in loaded_by_path


def _stem(file: str) -> str:
    return posixpath.basename(file).removesuffix(".rs")


def _path_of(attributes: Sequence[Node]) -> str | None:
    """The file named by ``#[path = "p"]`` among the attributes, if any."""
    for attribute_item in attributes:
        attribute = attribute_named(attribute_item, "path")
        if attribute is None:
            continue
        value = attribute.child_by_field_name("value")
        if value is not None and value.type == "string_literal":
            return text_of(value)[1:-1]
        if value is not None and value.type == "raw_string_literal":  # r"p", r#"p"#
            return text_of(next((c for c in value.children if c.type == "string_content"), None))
    return None
