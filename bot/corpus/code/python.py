"""Python source as prose: the module docstring, the public API, and module constants.

Rules, the Go ones carried over to Python's conventions:

- the module docstring is a chunk titled ``module <name>``;
- each public class, function and method (``Class.method``; a name with a leading
  underscore is private, except ``__init__``, which documents how a public class is built)
  is a chunk holding the comment lines directly above it, its decorators, its signature and
  its docstring, never its body; a class also keeps the attribute block right after its
  docstring (dataclass fields, enum members), its equivalent of a struct's fields; a
  function's ``@overload`` stubs open the passage of the definition that follows them; a
  property's setter and deleter are ``Class.x.setter`` and ``Class.x.deleter``;
- each module-level UPPER_CASE constant is a chunk holding its value, the private
  ``_UPPER_CASE`` ones included: as in Go, a constant is where a default lives, and whether
  it is exported says nothing about whether people ask for it; so is each UPPER_CASE
  constant of a public class that stands after the class's attribute block (``Class.NAME``:
  an enum's members written after its methods), which the class's own chunk does not hold;
  a type variable (``T = TypeVar("T")``) is not a constant;
- module level and a class body include the branches of their ``if`` and ``try`` statements
  (a definition per Python version or platform, a fallback when an import fails), but not the
  body of ``if __name__ == "__main__"`` or ``if TYPE_CHECKING``, which no importer runs (their
  ``else`` branches are what an importer runs, so those are included); a name defined in
  several branches is a chunk per branch;
- a file whose leading comments say it was generated is skipped.

``ast`` numbers lines as Python reads them (a lone carriage return also ends a line);
chunks number them as a forge does (only a line feed does), so every line number is
translated through byte offsets.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Iterable, Iterator, Sequence

from bot.corpus.chunk import Chunk
from bot.corpus.code.fstrings import without_fstrings
from bot.corpus.code.source import SourceLines, Symbol, Unchunkable, looks_generated
from bot.corpus.code.type_syntax import without_type_syntax

_CONSTANT = re.compile(r"_?[A-Z][A-Z0-9_]*")
_PYTHON_LINE_END = re.compile(rb"\r\n|\r|\n")
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# What ``@x.setter`` (``@x.deleter``, ``@x.getter``) calls on a property ``x``.
_ACCESSORS = frozenset({"setter", "deleter", "getter"})
_ASSIGNMENTS = (ast.Assign, ast.AnnAssign)
_CLASS_ATTRIBUTES = (*_ASSIGNMENTS, ast.Expr, ast.Pass)
# Declarations of a generic's parameter: ``T = TypeVar("T")`` is spelled like a constant but
# holds no value anybody asks for, and there is one in most typed modules.
_TYPE_VARIABLES = frozenset({"TypeVar", "ParamSpec", "TypeVarTuple"})


def chunk_python(path: str, data: bytes) -> list[Chunk]:
    """Cut one Python file into symbol chunks.

    Args:
        path: the file's repository-relative path (names the module, and messages).
        data: the file's bytes.

    Raises:
        Unchunkable: the file is generated or is not valid Python 3.
    """
    lines = SourceLines(data)
    module = _module_name(path)
    tree = _tree(data, path)
    walker = _Walker(lines, data, f"module {module}")
    if looks_generated(walker.header(tree.body)):
        raise Unchunkable(f"{path} is generated (its header says so)")

    return lines.chunks_of(walker.module(tree))


def _tree(data: bytes, path: str) -> ast.Module:
    """The file's syntax tree, read past newer Python's f-strings, t-strings and type syntax.

    Raises:
        Unchunkable: the file is not valid Python 3, or cannot be parsed at all.
    """
    try:
        return _parse(data, path)
    except SyntaxError as exc:
        error = exc
    # An error left once newer syntax is blanked is the file's own, and the one worth naming.
    for blanked in _without_newer_syntax(data):
        try:
            return _parse(blanked, path)
        except SyntaxError as exc:
            error = exc
    raise Unchunkable(f"{path} is not valid Python 3 (line {error.lineno}: {error.msg})")


def _without_newer_syntax(data: bytes) -> Iterator[bytes]:
    """The file with newer Python's syntax blanked, a step at a time, as far as it has any.

    Python 3.12's f-strings (``f"{d["k"]}"``), 3.14's t-strings (``t"{name}"``), ``def f[T]``
    and ``type X = ...`` are a syntax error to this Python; with them blanked, the same lines
    parse to the same declarations (``bot.corpus.code.fstrings``,
    ``bot.corpus.code.type_syntax``). The strings go first: the tokenizer that finds the type
    syntax cannot read past them.
    """
    older = without_fstrings(data)
    if older is not None:
        yield older
    oldest = without_type_syntax(older or data)
    if oldest is not None:
        yield oldest


def _parse(data: bytes, path: str) -> ast.Module:
    """The file's syntax tree.

    Raises:
        SyntaxError: the file is not Python this interpreter reads.
        Unchunkable: it cannot be parsed at all (null bytes, nesting too deep, an unknown
            source encoding).
    """
    try:
        with warnings.catch_warnings():
            # Old escape sequences warn at parse time; they are the file's business, not ours.
            warnings.simplefilter("ignore")
            return ast.parse(data, filename=path)
    except (ValueError, RecursionError, MemoryError, LookupError, OverflowError) as exc:
        raise Unchunkable(f"{path} cannot be parsed as Python: {exc}") from None


def _module_name(path: str) -> str:
    parts = path.split("/")
    stem = parts[-1].rsplit(".", 1)[0]
    if stem == "__init__" and len(parts) > 1:
        return parts[-2]
    return stem


def _public(name: str) -> bool:
    return not name.startswith("_") or name == "__init__"


def _docstring(body: Sequence[ast.stmt]) -> ast.Expr | None:
    first = body[0] if body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return first
    return None


class _Walker:
    """Finds the kept symbols of one parsed module, in file lines."""

    def __init__(self, lines: SourceLines, data: bytes, title: str) -> None:
        self.lines = lines
        self.title = title
        # Python's own line starts, only needed when a lone \r makes them differ from ours.
        self._python_starts: list[int] | None = None
        if b"\r" in data and re.search(rb"\r(?!\n)", data):
            self._python_starts = [0] + [m.end() for m in _PYTHON_LINE_END.finditer(data)]

    def line(self, python_line: int) -> int:
        """Our 1-based line for ``ast``'s 1-based line."""
        if self._python_starts is None:
            return python_line
        index = min(max(python_line, 1), len(self._python_starts)) - 1
        return self.lines.line_of(self._python_starts[index])

    def header(self, body: Sequence[ast.stmt]) -> str:
        """The comment lines before the first statement (where tools stamp "generated")."""
        end = self.line(body[0].lineno) - 1 if body else self.lines.count
        out = []
        for number in range(1, min(end, 40) + 1):
            text = self.lines.text(self.lines.line_start(number), self.lines.line_end(number))
            if text.lstrip().startswith("#"):
                out.append(text)
        return "\n".join(out)

    def module(self, tree: ast.Module) -> Iterator[Symbol]:
        doc = _docstring(tree.body)
        if doc is not None:
            first, last = self.line(doc.lineno), self.line(doc.end_lineno or doc.lineno)
            yield Symbol(self.title, self.title, (self.title,), first, last)
        for node, overloads in _with_overloads(_imported_statements(tree.body)):
            if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
                yield from self.definition(node, (), overloads)
            elif isinstance(node, _ASSIGNMENTS):
                yield from self.constant(node)

    def definition(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
        owners: tuple[str, ...],
        overloads: ast.FunctionDef | ast.AsyncFunctionDef | None = None,
    ) -> Iterator[Symbol]:
        """The kept symbols of a definition; ``overloads``, its first ``@overload``, opens it."""
        if not _public(node.name):
            return
        names = (*owners, node.name)
        # A property's setter and deleter are functions of the property's name too: named
        # apart, ``Class.x`` is the getter alone, the passage its docstring is in, and a
        # citation or a type's two slots never take one for another.
        role = _accessor_role(node)
        symbol = ".".join((*names, role) if role else names)
        first = self.comments_above(self.line(_first_line(overloads or node)))
        doc = _docstring(node.body)
        last = self.line(doc.end_lineno or doc.lineno) if doc else self.header_end(node)
        if isinstance(node, ast.ClassDef):
            last = max(last, self.attributes_end(node, doc))
        yield Symbol(symbol, symbol, (symbol,), first, last, names)
        if isinstance(node, ast.ClassDef):
            for child, overloads in _with_overloads(_imported_statements(node.body)):
                if isinstance(child, (*_FUNCTIONS, ast.ClassDef)):
                    yield from self.definition(child, names, overloads)
                # A constant past the attribute block the class chunk holds: an enum's
                # members after its methods (httpx's ``codes.NOT_FOUND``), a limit.
                elif isinstance(child, _ASSIGNMENTS) and self.line(child.lineno) > last:
                    yield from self.constant(child, names)

    def constant(
        self, node: ast.Assign | ast.AnnAssign, owners: tuple[str, ...] = ()
    ) -> Iterator[Symbol]:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if len(targets) != 1 or not isinstance(targets[0], ast.Name):
            return
        name = targets[0].id
        if not _CONSTANT.fullmatch(name) or (isinstance(node, ast.AnnAssign) and not node.value):
            return
        if _type_variable(node.value):
            return
        names = (*owners, name)
        symbol = ".".join(names)
        first = self.comments_above(self.line(node.lineno))
        last = self.line(node.end_lineno or node.lineno)
        yield Symbol(symbol, symbol, (symbol,), first, last, names, exported=_public(name))

    def comments_above(self, line: int) -> int:
        """The first of the ``#`` comment lines directly above ``line`` (no blank between)."""
        while line > 1:
            above = self.lines.data[self.lines.line_start(line - 1) : self.lines.line_end(line - 1)]
            if not above.lstrip().startswith(b"#"):
                break
            line -= 1
        return line

    def header_end(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> int:
        """The line holding the ``:`` that opens the body.

        ``ast`` does not record it; it is the last line before the first statement that is
        not blank or a comment, unless the body starts on the header's own line
        (``def f(): return 1``). A decorated first statement starts at its first decorator:
        ``ast`` places a decorated ``def`` on its ``def`` line, below its decorators.
        """
        first = node.body[0]
        if isinstance(first, (*_FUNCTIONS, ast.ClassDef)):
            body_line = self.line(_first_line(first))
        else:
            body_line = self.line(first.lineno)
        floor = self.line(_header_floor(node))
        line = body_line - 1
        while line > floor and self._blank_or_comment(line):
            line -= 1
        return line if line >= floor else body_line

    def attributes_end(self, node: ast.ClassDef, doc: ast.Expr | None) -> int:
        """The last line of the attribute assignments that open a class body."""
        last = 0
        for child in node.body[1:] if doc is not None else node.body:
            if not isinstance(child, _CLASS_ATTRIBUTES):
                break
            if isinstance(child, ast.Expr) and not isinstance(child.value, ast.Constant):
                break  # a call, not an attribute's docstring
            last = self.line(child.end_lineno or child.lineno)
        return last

    def _blank_or_comment(self, line: int) -> bool:
        text = self.lines.data[self.lines.line_start(line) : self.lines.line_end(line)].strip()
        return not text or text.startswith(b"#")


def _imported_statements(body: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    """A module's or class's statements in order, each ``if`` and ``try`` replaced by its branches.

    Importing the module runs those branches, so what they define is API like the rest. Both
    branches may define the same name (one ``def`` per Python version, a fallback when an
    import fails); each is kept, as a passage of that symbol citing its own lines, since
    which one runs depends on the machine, and their docstrings often differ. Function
    bodies are never entered: what a function defines is not API.
    """
    pending = list(reversed(body))
    while pending:  # a stack, not recursion: branches can nest deeper than Python can
        node = pending.pop()
        if isinstance(node, ast.If):
            pending.extend(reversed(_imported_branches(node)))
        elif isinstance(node, ast.Try | ast.TryStar):
            branches = [*node.body, *(s for h in node.handlers for s in h.body)]
            pending.extend(reversed([*branches, *node.orelse, *node.finalbody]))
        else:
            yield node


def _type_variable(value: ast.expr | None) -> bool:
    """``TypeVar(...)``, ``typing.ParamSpec(...)``, ``t.TypeVarTuple(...)``."""
    if not isinstance(value, ast.Call):
        return False
    return _name_of(value.func) in _TYPE_VARIABLES


def _with_overloads(
    statements: Iterable[ast.stmt],
) -> Iterator[tuple[ast.stmt, ast.FunctionDef | ast.AsyncFunctionDef | None]]:
    """Each statement, a function with the first of the ``@overload`` stubs right before it.

    ``@overload`` stubs declare a function's typed signatures and its last, undecorated
    definition says what it does: apart, each overload is a passage without a docstring and
    the docstring a passage with an untyped signature. So the stubs open the passage of the
    definition that follows them (the lines between are contiguous); stubs that no
    definition of the same name follows, as in a ``.pyi`` file, are one passage together.
    """
    run: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    for node in statements:
        if run and not (isinstance(node, _FUNCTIONS) and node.name == run[0].name):
            yield run[-1], run[0]
            run = []
        if isinstance(node, _FUNCTIONS) and _is_overload(node):
            run.append(node)
        else:
            yield node, run[0] if run else None
            run = []
    if run:
        yield run[-1], run[0]


def _accessor_role(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str:
    """``setter`` for ``@x.setter def x`` (``deleter``, ``getter`` alike), else ``""``."""
    if isinstance(node, ast.ClassDef):
        return ""
    for decorator in node.decorator_list:
        if (
            isinstance(decorator, ast.Attribute)
            and decorator.attr in _ACCESSORS
            and isinstance(decorator.value, ast.Name)
            and decorator.value.id == node.name
        ):
            return decorator.attr
    return ""


def _is_overload(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Decorated ``@overload`` (``@typing.overload``, ``@t.overload``)."""
    return any(_name_of(d) == "overload" for d in node.decorator_list)


def _imported_branches(node: ast.If) -> list[ast.stmt]:
    """The statements of an ``if`` at module or class level that importing the module may run.

    Both branches, unless the test is ``TYPE_CHECKING`` (true only for type checkers) or
    ``__name__ == "__main__"`` (true only when run as a script), or the negation of one:
    then only the branch an import runs.
    """
    test, negated = node.test, False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negated = test.operand, True
    if not _never_on_import(test):
        return [*node.body, *node.orelse]
    return node.body if negated else node.orelse


def _never_on_import(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` (``typing.TYPE_CHECKING``) or ``__name__ == "__main__"``, as written."""
    if isinstance(test, ast.Name | ast.Attribute):
        return _name_of(test) == "TYPE_CHECKING"
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    if not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    named = any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides)
    return named and any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides)


def _name_of(node: ast.expr) -> str:
    """The name an expression ends in: ``overload`` of ``overload`` and ``typing.overload``."""
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else ""


def _first_line(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> int:
    """The first decorator's line, else the ``def``/``class`` line."""
    return min([node.lineno, *(d.lineno for d in node.decorator_list)])


def _header_floor(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> int:
    """The last line known to belong to the header: its last argument, base or annotation."""
    parts: list[ast.AST] = []
    if isinstance(node, ast.ClassDef):
        parts += [*node.bases, *node.keywords]
    else:
        args = node.args
        parts += [*args.posonlyargs, *args.args, *args.kwonlyargs, *args.defaults]
        parts += [a for a in (args.vararg, args.kwarg, node.returns) if a is not None]
        parts += [d for d in args.kw_defaults if d is not None]
    ends = [getattr(p, "end_lineno", None) or node.lineno for p in parts]
    return max([node.lineno, *ends])
