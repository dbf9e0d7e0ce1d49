"""Finding code by the names a question mentions: the symbol routes of the lexical half.

A question that names ``update_with_detection`` wants the chunk that declares it, and BM25
may not deliver: the identifier is one rare token among many common ones, and a chunk that
merely *calls* it can outscore the declaration. So names are matched against the symbol
table (every code chunk's ``symbol``) four ways:

- exact: the name as written (``FaceTrack.update_with_detection``, or just the member);
- another style: ``updateWithDetection``, ``UpdateWithDetection`` and
  ``update_with_detection`` fold onto one key;
- misspelled: within one edit of the folded key (two for long names);
- described: "what updates a track with a detection", by how many of the symbol's own words
  the question uses.

The first three are *named* hits: the retriever pins the best of them first. The fourth is
only a ranking, fused with the others. Everything here is pure: the table is handed in.
"""

from __future__ import annotations

import itertools
import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import IntEnum

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from bot.corpus.identifiers import split_identifier
from bot.index.query import FUNCTION_WORDS, question_words, stem

# A dotted run of identifiers: ``Map.Lookup``, ``cobra.CheckErr``, ``update_with_detection``,
# or a Rust path, read as dotted: ``anyhow::Error``, ``Version::parse``.
_NAME = re.compile(r"`?[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?`?")
# Rust files that are a crate's or a module's root: their stem names no module.
_RUST_ROOTS = frozenset({"lib", "main", "mod"})
# How a Rust path starts from where it is written: `crate::parse` is the crate's own `parse`.
_RUST_RELATIVE = frozenset({"crate", "self", "super"})
_CAMEL = re.compile(r"[a-z0-9][A-Z]")
_WORD = re.compile(r"[A-Za-z]+")

# What ends a file name rather than a member: `go.mod`, `foo_grpc.pb.go` and `app.yaml` name
# files, and the last part alone would reach a symbol called `Mod`, `Go` or `Yaml`.
_EXTENSIONS = "cfg conf cpp go ini js json lock md mod proto py rs sh sum toml ts txt yaml yml"
_FILE_EXTENSIONS = frozenset(_EXTENSIONS.split())

MIN_FUZZY_LENGTH = 6  # shorter keys are one edit away from too many others
LONG_NAME = 12  # from this length two edits are still the same name


class Route(IntEnum):
    """How a name in the question reached a symbol; lower is stronger."""

    EXACT = 0
    STYLE = 1
    MISSPELLED = 2


@dataclass(frozen=True, slots=True)
class Declared:
    """A chunk that declares a symbol (``Name``, ``Type.Method``), and the file it is in."""

    chunk_id: int
    repo: str
    symbol: str
    path: str = ""


@dataclass(frozen=True, slots=True)
class NamedHit:
    """A symbol a name in the question reached, and how."""

    chunk_id: int
    symbol: str
    name: str  # as the question wrote it
    route: Route
    whole: bool  # the whole symbol matched, not only its member part
    edits: int = 0


def fold(name: str) -> str:
    """The style-free key of a name: ``updateWithDetection`` -> ``updatewithdetection``."""
    return ".".join("".join(split_identifier(part)) for part in name.split("."))


def mentioned_names(question: str) -> list[str]:
    """The identifiers a question writes as code, in order, each once.

    A word counts when it could not be prose: it has an inner capital (``WithBlock``), an
    underscore, a dot or Rust's ``::`` between identifiers (``Map.Lookup``, ``Regex::new``),
    call parentheses, or backticks of its own. The first and last words of a longer code span
    (`app --verbose sub`) are not names by that alone, and neither is a file name (``go.mod``).
    A Rust path is returned dotted, without the ``crate``, ``self`` or ``super`` it starts
    from: ``crate::de::Visitor`` is ``de.Visitor``.
    """
    return [name for name, _ in _mentions(question)]


def _mentions(question: str) -> Iterator[tuple[str, bool]]:
    """``mentioned_names``'s names, each with whether it was written as a Rust path."""
    seen: set[str] = set()
    for match in _NAME.finditer(question):
        raw = match.group(0)
        written = raw.strip("`").removesuffix("()")
        path = "::" in written
        parts = written.replace("::", ".").split(".")
        coded = (raw.startswith("`") and raw.endswith("`")) or raw.rstrip("`").endswith("()")
        if len(parts) > 1 and len(parts[-1]) < 2:
            continue  # "e.g" and "i.e" are not names; "c.FlagNames" is
        if len(parts) > 1 and parts[-1] in _FILE_EXTENSIONS:
            continue
        if not (coded or len(parts) > 1 or "_" in written.strip("_") or _CAMEL.search(written)):
            continue
        if path:
            while len(parts) > 1 and parts[0] in _RUST_RELATIVE:
                parts = parts[1:]
        name = ".".join(parts)
        if name not in seen:
            seen.add(name)
            yield name, path


def named_keys(question: str) -> frozenset[str]:
    """The folded keys of the names a question writes as code, and of their last parts.

    ``cobra.ExactValidArgs`` gives ``cobra.exactvalidargs`` and ``exactvalidargs``: the last
    part alone is how a package- or variable-qualified name reaches its symbol.
    """
    keys: set[str] = set()
    for name in mentioned_names(question):
        keys.update((fold(name), fold(name.rsplit(".", 1)[-1])))
    return frozenset(keys)


@dataclass(frozen=True, slots=True)
class WrittenNames:
    """What a question writes as code: its names' folded keys, and its qualified pairs."""

    keys: frozenset[str] = frozenset()
    qualified: frozenset[tuple[str, str]] = frozenset()

    @classmethod
    def of(cls, question: str) -> WrittenNames:
        """What ``question`` writes as code."""
        return cls(named_keys(question), qualified_names(question))


NONE_WRITTEN = WrittenNames()


def qualified_names(question: str) -> frozenset[tuple[str, str]]:
    """The folded ``(qualifier, name)`` pairs of the names the question writes with a qualifier.

    ``stdlib.Merge`` gives ``("stdlib", "merge")``. A longer name gives its last two pairs,
    since its parts may be a package, a type and a member (``cty.Value.Type``: ``cty`` and
    ``Value``) or packages and a module's member (``click.types.Choice``: ``types`` and
    ``Choice``).
    """
    pairs: set[tuple[str, str]] = set()
    for name in mentioned_names(question):
        parts = [fold(part) for part in name.split(".")]
        pairs.update(itertools.pairwise(parts[-3:]))
    return frozenset(pairs)


def in_named_package(
    symbol: str, path: str, source: str, qualified: frozenset[tuple[str, str]]
) -> bool:
    """Whether the question names ``symbol``, or its type, qualified by the package declaring it.

    The package is read from where the file lies: the directory holding it (``convert.Convert``
    for ``cty/convert/public.go``), a Python module's own name (``types.Choice`` for
    ``click/types.py``), or, for a file at the repository's root, a word of the repository's
    name (``hcl.Diagnostics`` in ``hcl``, ``gitlab.NewClient`` in ``go-gitlab``). A Rust item
    is also named by its module file (``de::Visitor`` for ``src/de.rs``) and by its crate,
    anywhere in it, since crates re-export their items at the top (``anyhow::Error``).
    """
    if not qualified or not symbol:
        return False
    owner = fold(symbol.split(".", 1)[0])
    qualifiers = {qualifier for qualifier, name in qualified if name == owner}
    return bool(qualifiers) and not qualifiers.isdisjoint(_packages(path, source))


def _packages(path: str, source: str) -> set[str]:
    """The names a file's declarations are qualified with in code that uses them."""
    directory, file = posixpath.split(path)
    packages = {fold(posixpath.basename(directory))} if directory else _words(source)
    module, extension = posixpath.splitext(file)
    if extension == ".py" and module != "__init__":
        packages.add(fold(module))
    if extension == ".rs":
        packages |= {fold(crate) for crate in _rust_crates(path, source)}
        if module not in _RUST_ROOTS:
            packages.add(fold(module))
    return packages


def _rust_crates(path: str, source: str) -> set[str]:
    """The names of the crate a Rust file belongs to, as code that uses it writes them.

    The folder holding its ``src`` (``clap_builder`` for ``clap_builder/src/builder/command.rs``),
    and the repository's own name (``anyhow``; ``clap`` for a workspace whose top crate
    re-exports the others), dashes as underscores.
    """
    parts = path.split("/")
    crates = {_project(source).replace("-", "_")}
    if "src" in parts[:-1]:
        above = parts[: parts.index("src")]
        if above:
            crates.add(above[-1].replace("-", "_"))
    return crates


def _words(source: str) -> set[str]:
    return {fold(word) for word in question_words(_project(source))}


def _project(source: str) -> str:
    # A forge source is named by its path (acme/go/config): its last part is the project's.
    return source.rsplit("/", 1)[-1]


def is_named(symbol: str, keys: frozenset[str]) -> bool:
    """Whether ``symbol`` (``Name`` or ``Type.Member``), or its member, is named by ``keys``.

    Styles fold together and a dotted name's last part counts alone, whatever qualifies it:
    ``conn.Close()`` names every ``Close``, on whichever type.
    """
    if not keys or not symbol:
        return False
    return fold(symbol) in keys or fold(symbol.rsplit(".", 1)[-1]) in keys


def _content_words(words: Iterable[str]) -> set[str]:
    return {stem(w) for w in words if w not in FUNCTION_WORDS and len(w) > 1}


class SymbolTable:
    """Every declared symbol, indexed by exact name, by folded key, and by its words."""

    def __init__(self, declared: Iterable[Declared]) -> None:
        self._exact: dict[str, list[tuple[Declared, bool]]] = defaultdict(list)
        self._folded: dict[str, list[tuple[Declared, bool]]] = defaultdict(list)
        self._words: dict[str, set[int]] = defaultdict(set)
        self._symbol_words: dict[int, set[str]] = {}
        self._declared: dict[int, Declared] = {}
        self._packages: dict[int, set[str]] = {}
        go_packages: dict[tuple[str, str], str] = {}
        for item in declared:
            if item.symbol.startswith("package "):
                package = item.symbol.removeprefix("package ")
                go_packages[item.repo, posixpath.dirname(item.path)] = package
                continue
            if not item.symbol:
                continue
            self._declared[item.chunk_id] = item
            keys = [(item.symbol, True)]
            if "." in item.symbol:
                keys.append((item.symbol.rsplit(".", 1)[1], False))
            for key, whole in keys:
                self._exact[key].append((item, whole))
                self._folded[fold(key)].append((item, whole))
            words = _content_words(
                w for part in item.symbol.split(".") for w in split_identifier(part)
            )
            self._symbol_words[item.chunk_id] = words
            for word in words:
                self._words[word].add(item.chunk_id)
        self._folded_keys = [k for k in self._folded if len(k) >= MIN_FUZZY_LENGTH]
        for item in self._declared.values():
            self._packages[item.chunk_id] = _homes(item, go_packages)
        self._known_packages = set().union(*self._packages.values())

    def __len__(self) -> int:
        return len(self._declared)

    def named(self, question: str) -> list[list[NamedHit]]:
        """For each name the question mentions, the symbols it reaches, best first.

        Names that reach nothing are left out. Within one name: the whole symbol before a
        member part, exact before another style before misspelled, fewer edits first.
        """
        out = []
        for name, path in _mentions(question):
            hits = self._lookup(name, path)
            if hits:
                hits.sort(key=lambda h: (not h.whole, h.route, h.edits, h.chunk_id))
                out.append(hits)
        return out

    def _lookup(self, name: str, path: bool = False) -> list[NamedHit]:
        hits = self._by_name(name, name)
        if hits or "." not in name:
            return hits
        # "cobra.CheckErr" and "c.FlagNames" qualify by package or by variable, not by type:
        # when the dotted whole is no symbol, the last part is looked up alone. A package
        # qualifier keeps the symbols declared in that package (ctyjson's Marshal, not
        # msgpack's); a variable's is a value, so what it calls is a method (``val.Length()``
        # is ``Value.Length``, not a function named ``Length``). A Rust path's qualifier is a
        # module or a type, never a variable: one the index does not hold as a crate or
        # module, nor as the type with that member, names something outside it
        # (``std::io::Error``, ``HashMap::new``), and reaches nothing; ``Self::new`` is a
        # method of the type the question is about.
        qualifier, member = name.rsplit(".", 2)[-2:]
        hits = self._by_name(member, name)
        if qualifier in self._known_packages:
            home = [h for h in hits if qualifier in self._packages[h.chunk_id]]
        elif path and qualifier != "Self":
            return []
        else:
            home = [h for h in hits if not h.whole]
        return home or hits

    def _by_name(self, candidate: str, written: str) -> list[NamedHit]:
        exact = self._exact.get(candidate, [])
        if exact:
            return [NamedHit(d.chunk_id, d.symbol, written, Route.EXACT, w) for d, w in exact]
        key = fold(candidate)
        styled = self._folded.get(key, [])
        if styled:
            return [NamedHit(d.chunk_id, d.symbol, written, Route.STYLE, w) for d, w in styled]
        if len(key) < MIN_FUZZY_LENGTH:
            return []
        limit = 2 if len(key) >= LONG_NAME else 1
        hits = []
        near = process.extract(
            key,
            self._folded_keys,
            scorer=Levenshtein.distance,
            score_cutoff=limit,
            limit=None,
        )
        for other, edits, _ in near:
            hits += [
                NamedHit(d.chunk_id, d.symbol, written, Route.MISSPELLED, w, int(edits))
                for d, w in self._folded[other]
            ]
        return hits

    def described(self, question: str, limit: int = 64) -> list[int]:
        """Chunks whose symbol's words the question uses, best first.

        A symbol qualifies when the question uses every one of its words, and at least two:
        measured on the benchmark, letting half of them qualify pulled code above the docs
        sections that answered. More of its words used ranks higher.
        """
        asked = _content_words(w.lower() for w in _WORD.findall(question))
        counts: dict[int, int] = defaultdict(int)
        for word in asked:
            for chunk_id in self._words.get(word, ()):
                counts[chunk_id] += 1
        scored = []
        for chunk_id, used in counts.items():
            total = len(self._symbol_words[chunk_id])
            if used >= 2 and used == total:
                scored.append((-used / total, -used, total, chunk_id))
        scored.sort()
        return [item[3] for item in scored[:limit]]


def pins(named: list[list[NamedHit]], prefer: Mapping[int, int], most: int) -> list[int]:
    """The chunks to pin first: the best hit of each named symbol, at most ``most``.

    Where one name reaches several equally good symbols (``Run`` in three repositories),
    ``prefer`` (chunk id to its lexical rank) breaks the tie: the one the question's other
    words also point at wins.
    """
    chosen: list[int] = []
    ordered = sorted(named, key=lambda hits: hits[0].route)
    for hits in ordered:
        if len(chosen) >= most:
            break
        best = hits[0]
        tied = [
            h for h in hits if (h.whole, h.route, h.edits) == (best.whole, best.route, best.edits)
        ]
        unranked = len(prefer) + 1
        pick = min(tied, key=lambda h: (prefer.get(h.chunk_id, unranked), h.chunk_id))
        if pick.chunk_id not in chosen:
            chosen.append(pick.chunk_id)
    return chosen


def _homes(item: Declared, go_packages: Mapping[tuple[str, str], str]) -> set[str]:
    """What a qualifier may call the place a symbol is declared in.

    The folders and the module of its path (``requests/api.py``: "requests", "api"), in Go
    the package's own name, which need not be its folder's (``cty/json`` declares
    ``package ctyjson``), and in Rust the crate's (``anyhow::Error``).
    """
    directory = posixpath.dirname(item.path)
    homes = {*directory.split("/"), posixpath.basename(item.path).split(".", 1)[0]}
    if (item.repo, directory) in go_packages:
        homes.add(go_packages[item.repo, directory])
    if item.path.endswith(".rs"):
        # A crate's or a module's root file, and the folder of its sources, name no module.
        homes = (homes - _RUST_ROOTS - {"src"}) | _rust_crates(item.path, item.repo)
    return homes - {""}
