"""Choosing the passages an answer is composed from.

Rules (docs/retrieval.md, "Choosing the eight passages"):

- No document takes more than two slots: a changelog's entries all match a question alike.
  In code, the document is a type with its methods (or a function or constant of its own); a
  type the question names with its package (`hcl.Diagnostics`) takes up to four, since the
  question asks among its methods.
- Passages that give the same answer take one slot, the first: the same text once whitespace
  is normalised (a library copied into a second repository), methods of one name on many
  types of one repository, or one section kept in two versions of the documentation.
- A source the question names has its slots searched without its name, since inside that
  source every page carries the name; the remaining slots search with the full question.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

from bot.index.query import question_words
from bot.index.symbols import NONE_WRITTEN, WrittenNames, in_named_package

PER_DOCUMENT = 2
# A type the question names with its package: "`hcl.Diagnostics` holds only warnings, how do I
# check for an error?" is answered by one of its methods (`HasErrors`), which two slots, taken
# by the type and a better-matching method, kept out. Half the slots leaves room for the rest.
PER_NAMED_TYPE = 4
# Of the eight slots, those a repository named in the question fills from its own passages;
# the last one finds the name's mentions elsewhere. Measured: 7 ranks code answers higher than
# 6 (code hit@8 0.875 -> 0.917) and changes no docs answer; 3 to 5 lose docs answers.
NAMED_SLOTS = 7
# Two passages under one heading of one source sharing this much of their words (the words both
# use, over the words either uses) are one section kept twice. Measured on the benchmark sets,
# 0.7 to 0.9 join the same passages: versioned copies differ by an import path or a word.
SAME_SECTION_WORDS = 0.8
# ...and each holds at least this many distinct words: two short passages share most of their
# few words by their form alone ("Install it with `go get .../retry`" and ".../cache"). The
# shortest copies joined on the benchmark sets hold 21.
SAME_SECTION_LEAST_WORDS = 20
_WORD = re.compile(r"[^\W_]+")


class Selectable(Protocol):
    """What selection needs to know about a retrieved passage."""

    @property
    def chunk_id(self) -> int:
        """The passage's chunk."""
        ...

    @property
    def document_id(self) -> int:
        """The document the chunk belongs to."""
        ...

    @property
    def text_key(self) -> str:
        """The key of the passage's normalised text (``text_key``)."""
        ...

    @property
    def repo(self) -> str:
        """The source the passage comes from."""
        ...

    @property
    def path(self) -> str:
        """The passage's file, within its source."""
        ...

    @property
    def symbol(self) -> str:
        """The code symbol the passage declares, or ""."""
        ...

    @property
    def heading(self) -> str:
        """The passage's own heading (a code passage's is its symbol's name)."""
        ...

    @property
    def text(self) -> str:
        """The passage's text, as stored."""
        ...


T = TypeVar("T", bound=Selectable)


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def spoken_names(name: str) -> list[str]:
    """How a question may name a source.

    By its whole name, or, for a forge path, by the path below its top-level group
    (``acme/go/config`` is named by "go/config").
    """
    names = [name]
    if "/" in name:
        names.append(name.split("/", 1)[1])
    return names


def named_sources(question: str, names: Iterable[str]) -> list[str]:
    """The sources named in the question as consecutive words.

    ``urfave-cli`` is named by "urfave cli" or "urfave-cli"; ``acme/go/config`` by
    "go/config" or "acme/go/config".
    """
    words = [w.lower() for w in _words(question)]
    found = []
    for name in names:
        for spoken in spoken_names(name):
            parts = [p.lower() for p in _words(spoken)]
            if parts and _find(words, parts) >= 0:
                found.append(name)
                break
    return found


def without_names(question: str, names: Iterable[str]) -> str:
    """The question's words with every occurrence of the given names removed.

    Only a name's words standing together are a name: a word of it alone ("gitlab" in
    "go-gitlab: ... our own gitlab server") is usually the subject, and is kept. Dropping it
    as well lost an answer on the benchmark (BENCHMARKS.md, "lone name words").
    """
    words = _words(question)
    lowered = [w.lower() for w in words]
    keep = [True] * len(words)
    for spoken in (s for name in names for s in spoken_names(name)):
        parts = [p.lower() for p in _words(spoken)]
        start = 0
        while parts and (at := _find(lowered, parts, start)) >= 0:
            for i in range(at, at + len(parts)):
                keep[i] = False
            start = at + len(parts)
    return " ".join(w for w, k in zip(words, keep, strict=True) if k)


def _find(words: Sequence[str], parts: Sequence[str], start: int = 0) -> int:
    n = len(parts)
    for i in range(start, len(words) - n + 1):
        if list(words[i : i + n]) == list(parts):
            return i
    return -1


def cap_unit(result: Selectable) -> tuple[int, str]:
    """What the two-slot cap counts: a document, or in code a type with its methods.

    A page is one document. A source file is not: it is a container of declarations, and
    the unit its documentation is organised by is the type together with its methods
    (``Map``, ``Map.Lookup``); independent functions and constants are units of their own.
    """
    owner = result.symbol.split(".", 1)[0] if result.symbol else ""
    return result.document_id, owner


def same_answer_key(result: Selectable) -> str:
    """What makes two passages give the same answer.

    Identical text (a library copied into a second repository) is the same answer; so are
    methods of one name on many types of one repository (``BoolFlag.TakesValue``,
    ``PathFlag.TakesValue``), whose doc comments differ only in the type they name.
    """
    if "." in result.symbol:
        return f"{result.repo}\0{result.symbol.rsplit('.', 1)[1]}"
    return result.text_key


def same_section(a: Selectable, b: Selectable) -> bool:
    """Whether two passages are one section kept twice, as versioned documentation keeps it.

    A project that documents each major version (``docs/v1/flags.md``, ``docs/v2/flags.md``)
    repeats most sections with an import path or a word changed: not the same text, so
    ``same_answer_key`` does not join them, but the same answer, and both match a question
    alike. Under one heading of one source, passages of two files that share nearly all their
    words are taken as one. Code is read the same way, its heading being its symbol: one
    declaration kept per platform or per API (``Open`` in ``file_unix.go`` and
    ``file_windows.go``) with the same doc comment is one answer too. The parts of one long
    section are left to the two-slot cap: they continue each other, however alike their words.
    """
    if a.repo != b.repo or a.heading != b.heading or a.document_id == b.document_id:
        return False
    # Words as the index cuts and folds them, so "Flag" and "flag" are one word.
    words_a, words_b = set(question_words(a.text)), set(question_words(b.text))
    if min(len(words_a), len(words_b)) < SAME_SECTION_LEAST_WORDS:
        return False
    return len(words_a & words_b) >= SAME_SECTION_WORDS * len(words_a | words_b)


def normalised(text: str) -> str:
    """Text with whitespace runs collapsed, for spotting the same passage twice."""
    return " ".join(text.split())


def text_key(text: str) -> str:
    """A short, stable key of a text's normalised form (stored with every chunk)."""
    return hashlib.blake2b(normalised(text).encode("utf-8"), digest_size=12).hexdigest()


def select(
    named: Sequence[T],
    general: Sequence[T],
    limit: int,
    named_slots: int,
    per_document: int = PER_DOCUMENT,
    written: WrittenNames = NONE_WRITTEN,
) -> list[T]:
    """Fill ``limit`` slots with passages.

    First up to ``named_slots`` from the named sources' results, then the rest from the full
    question's, then any still empty from the named results again. Both inputs are ranked
    best first; the output keeps the order slots were filled in. ``written`` holds the names
    the question writes as code: a type it names with its package takes up to
    ``PER_NAMED_TYPE`` slots with its methods.
    """
    chosen: list[T] = []
    per_unit: dict[tuple[int, str], int] = {}
    seen_ids: set[int] = set()
    seen_text: set[str] = set()

    def take(results: Sequence[T], until: int) -> None:
        for result in results:
            if len(chosen) >= until:
                return
            unit = cap_unit(result)
            named = in_named_package(result.symbol, result.path, result.repo, written.qualified)
            cap = PER_NAMED_TYPE if named else per_document
            if result.chunk_id in seen_ids or per_unit.get(unit, 0) >= cap:
                continue
            key = same_answer_key(result)
            if key in seen_text or any(same_section(result, other) for other in chosen):
                continue
            chosen.append(result)
            seen_ids.add(result.chunk_id)
            seen_text.add(key)
            per_unit[unit] = per_unit.get(unit, 0) + 1

    take(named, min(named_slots, limit))
    take(general, limit)
    take(named, limit)
    return chosen
