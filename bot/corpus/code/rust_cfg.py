"""Whether a Rust ``cfg`` predicate holds only when compiling tests (pure).

An item under ``#[cfg(P)]`` is compiled only for tests when every configuration in which
``P`` holds has ``test`` set: when ``P`` cannot hold with ``test`` unset. So ``P`` is
evaluated with ``test`` false, in three-valued logic: ``all`` is false once one of its
predicates is, ``any`` once all of them are, ``not`` swaps true and false and leaves unknown
alone. A predicate that comes out false then holds with ``test`` alone (``all(any(unix,
windows), test)``); one that comes out true or unknown is compiled into the library too
(``not(test)``, ``any(test, feature = "x")``).

It is evaluated once for each kind of target (``_TARGETS``), which settles the options that
exclude each other: no target is both ``unix`` and ``windows``, or has two ``target_os``,
and each of a few well-known systems has one family (``target_os = "linux"`` is ``unix``).
A predicate false on every target, ``all(unix, windows)``, is compiled for none, and so for
no library either: its item is no API, as a test-only one is. Every other option
(``feature = "x"``, ``target_arch``, an OS or family this does not know) stays unknown and
independent of the rest, so an item is kept whenever it might compile, which costs a
passage, never a lost one. A predicate that does not read is kept too.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# Three-valued truth: True, False, or None for "depends on options other than test".
_Truth = bool | None


class _Target(NamedTuple):
    """A kind of target: its ``target_family`` values, its ``target_os`` if well known, tests."""

    families: frozenset[str]
    os: str | None  # None: any system not in _SYSTEMS
    test: bool = False


_FAMILIES = frozenset({"unix", "windows", "wasm"})
# The family of each system whose every target has that one: not so for others (wasm32's
# emscripten is both unix and wasm).
_SYSTEMS = {"windows": "windows"} | {
    system: "unix"
    for system in (
        "linux",
        "android",
        "macos",
        "ios",
        "freebsd",
        "netbsd",
        "openbsd",
        "dragonfly",
        "illumos",
        "solaris",
    )
}
_TARGETS = (
    *(_Target(frozenset({family}), system) for system, family in _SYSTEMS.items()),
    *(
        _Target(frozenset(families), None)
        for families in ({"unix"}, {"windows"}, {"wasm"}, {"unix", "wasm"}, set())
    ),
)

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<name>(?:r\#)?[A-Za-z_][A-Za-z0-9_]*)
        | (?P<string>"(?:[^"\\]|\\.)*")
        | (?P<punct>[(),=])
    )""",
    re.VERBOSE | re.DOTALL,
)
# Deeper nesting than any real predicate; past it the predicate is not read, not recursed.
_MAX_DEPTH = 32


class _Unreadable(Exception):
    """The text is not a ``cfg`` predicate."""


def only_for_tests(predicate: str) -> bool:
    """Whether ``#[cfg(predicate)]`` compiles its item only when compiling tests.

    ``predicate`` is the text between ``cfg``'s brackets, ``all(any(unix, windows), test)``.
    True as well for one compiled for no target at all (``for_no_target``).
    """
    return _false_on(predicate, _TARGETS)


def for_no_target(predicate: str) -> bool:
    """Whether ``#[cfg(predicate)]`` compiles its item for no target, tests or not.

    ``all(unix, windows)``, or ``any()``: such an item is no API, and no test's either.
    """
    return _false_on(predicate, (*_TARGETS, *(t._replace(test=True) for t in _TARGETS)))


def _false_on(predicate: str, targets: tuple[_Target, ...]) -> bool:
    """Whether the predicate reads, and is false on each of ``targets``."""
    try:
        tokens = _tokens(predicate)
        values = [_predicate(tokens, 0, 0, target) for target in targets]
    except _Unreadable:
        return False
    return all(at == len(tokens) and value is False for value, at in values)


def _tokens(text: str) -> list[str]:
    tokens, at = [], 0
    while text[at:].strip():
        match = _TOKEN.match(text, at)
        if match is None:
            raise _Unreadable(f"unexpected text at character {at}")
        tokens.append(match.group(match.lastgroup or 0))
        at = match.end()
    return tokens


def _predicate(tokens: list[str], at: int, depth: int, target: _Target) -> tuple[_Truth, int]:
    """The truth on ``target`` of the predicate starting at token ``at``, and the index past it."""
    if depth > _MAX_DEPTH or at >= len(tokens) or not _is_name(tokens[at]):
        raise _Unreadable("a predicate must start with a name")
    name = tokens[at].removeprefix("r#")
    after = tokens[at + 1] if at + 1 < len(tokens) else ""
    if after == "=":  # ``feature = "x"``: an option with a value, never ``test``
        if at + 2 >= len(tokens) or not tokens[at + 2].startswith('"'):
            raise _Unreadable("an option's value must be a string")
        return _valued_option(name, tokens[at + 2][1:-1], target), at + 3
    if after != "(":
        return _option(name, target), at + 1
    values, at = _arguments(tokens, at + 2, depth + 1, target)
    return _combined(name, values), at


def _arguments(tokens: list[str], at: int, depth: int, target: _Target) -> tuple[list[_Truth], int]:
    """The predicates between brackets from token ``at``, and the index past the ``)``."""
    values: list[_Truth] = []
    while at < len(tokens) and tokens[at] != ")":
        value, at = _predicate(tokens, at, depth, target)
        values.append(value)
        if at < len(tokens) and tokens[at] == ",":
            at += 1
        elif at >= len(tokens) or tokens[at] != ")":
            raise _Unreadable("predicates must be separated by commas")
    if at >= len(tokens):
        raise _Unreadable("a bracket is not closed")
    return values, at + 1


def _option(name: str, target: _Target) -> _Truth:
    if name == "test":
        return target.test
    if name in ("true", "false"):  # ``cfg(true)``, ``cfg(false)``
        return name == "true"
    if name in ("unix", "windows"):  # short for ``target_family = "unix"``
        return name in target.families
    return None


def _valued_option(name: str, value: str, target: _Target) -> _Truth:
    if name == "target_family" and value in _FAMILIES:
        return value in target.families
    if name == "target_os" and (value in _SYSTEMS or target.os is not None):
        return value == target.os  # a system this does not know is none of those it does
    return None


def _combined(name: str, values: list[_Truth]) -> _Truth:
    if name == "all":
        return False if False in values else (True if all(values) else None)
    if name == "any":
        return True if True in values else (False if all(v is False for v in values) else None)
    if name == "not":
        if len(values) != 1:
            raise _Unreadable("not takes one predicate")
        return None if values[0] is None else not values[0]
    return None  # a predicate this does not know may hold


def _is_name(token: str) -> bool:
    return token[0].isalpha() or token[0] == "_"
