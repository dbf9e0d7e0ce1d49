"""Whatever bytes a code chunker is fed, it returns honest chunks or says why it cannot."""

import codecs

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.corpus.code import Unchunkable, chunk_code
from bot.corpus.code.fstrings import without_fstrings
from bot.corpus.code.rust_modules import module_declarations
from tests.unit.codechecks import assert_honest

PATHS = ("pkg/file.go", "pkg/module.py", "src/lib.rs")

# Pieces of real syntax, so generated files often parse and reach the chunkers' later stages.
FRAGMENTS = {
    "go": [
        "package p\n",
        "// Doc line.\n",
        "/* block\n",
        "*/\n",
        "func F(",
        ") {\n",
        "}\n",
        "const (\n",
        ")\n",
        "\tA = 1\n",
        "\tb Kind = iota\n",
        "var V = func() {\n",
        "type T struct {\n",
        '\tField int `json:"f"`\n',
        "func (t *T[K]) M() error {\n",
        '"unterminated\n',
        "`raw\n",
        "\n",
        "{",
        "}",
        "é",
        "\r\n",
        "\t",
    ],
    "python": [
        '"""Doc.\n',
        '"""\n',
        "def f(x):\n",
        "    return x\n",
        "class C:\n",
        "    @property\n",
        "    def m(self):\n",
        "        pass\n",
        "async def g(\n",
        "    a,\n",
        "):\n",
        "X = 1\n",
        "if sys.platform == 'win32':\n",
        "try:\n",
        "except ImportError:\n",
        "else:\n",
        "if TYPE_CHECKING:\n",
        "def h[T: (int, str)](x: T):\n",
        "class G[T = int]:\n",
        "type A[K] = dict[K, int]\n",
        "[",
        "]",
        "# comment\n",
        "'unterminated\n",
        "(",
        ")",
        "\n",
        "\r",
        "é",
        "    ",
    ],
    "rust": [
        "//! Crate doc.\n",
        "/// Item doc.\n",
        "#[derive(Debug)]\n",
        "#[doc(hidden)]\n",
        "#![doc(hidden)]\n",
        "pub struct S {\n",
        "}\n",
        "pub fn f() -> u8 {\n",
        "impl S {\n",
        "pub trait T {\n",
        "fn m(&self);\n",
        "pub const C: u8 = 1;\n",
        "mod m {\n",
        "cfg_rt! {\n",
        "pin_project! {\n",
        "cfg_if! {\n",
        "if #[cfg(unix)] {\n",
        "} else if #[cfg(test)] {\n",
        "} else {\n",
        "mod m;\n",
        "mod $x;\n",
        "macro_rules! m {\n",
        "($x:ident) => {\n",
        "$(#[$a])*\n",
        "pub struct $x;\n",
        "$($y),+",
        "try!(x);\n",
        'unsafe extern "C" {\n',
        "pub safe fn a();\n",
        "pub unsafe static X: u8;\n",
        "pub type T;\n",
        "safe static\n",
        "/* open\n",
        '"open\n',
        "{",
        "}",
        "\n",
        "é",
    ],
}

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def chunk_or_refuse(path: str, data: bytes) -> None:
    try:
        chunks = chunk_code(path, data)
    except Unchunkable as exc:
        reason = str(exc)
    else:
        assert_honest(data, chunks)
        return
    assert reason, "a refusal says why"


@SETTINGS
@given(path=st.sampled_from(PATHS), data=st.binary(max_size=2000))
def test_arbitrary_bytes(path, data):
    chunk_or_refuse(path, data)


@st.composite
def source_like(draw, language):
    pieces = draw(st.lists(st.sampled_from(FRAGMENTS[language]), max_size=60))
    noise = draw(st.binary(max_size=8))
    at = draw(st.integers(min_value=0, max_value=len(pieces)))
    text = "".join(pieces[:at]).encode() + noise + "".join(pieces[at:]).encode()
    return text


@SETTINGS
@given(data=source_like("go"))
def test_go_like_fragments(data):
    chunk_or_refuse("pkg/file.go", data)


@SETTINGS
@given(data=source_like("python"))
def test_python_like_fragments(data):
    chunk_or_refuse("pkg/module.py", data)


@SETTINGS
@given(data=source_like("rust"))
def test_rust_like_fragments(data):
    chunk_or_refuse("src/lib.rs", data)


@SETTINGS
@given(data=st.one_of(source_like("rust"), st.binary(max_size=2000)))
def test_rust_module_declarations_never_raise(data):
    for declaration in module_declarations(data):
        assert declaration.name


# Programs that parse, with hostile content where the grammar allows anything: comments
# holding invalid UTF-8 or the other language's delimiters, bodies of nested braces, long
# lines, either line ending. These reach every rule a real file reaches.
NAMES = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,12}", fullmatch=True).filter(
    lambda n: n not in KEYWORDS
)
_KEYWORDS_TEXT = """
break case chan const continue default defer else fallthrough for func go goto if import
interface map package range return select struct switch type var False None True and as
assert async await class def del elif except finally from global in is lambda nonlocal not
or pass raise try while with yield match crate dyn enum extern false fn impl let loop mod
move mut pub ref self Self static super trait true unsafe use where abstract become box do
final macro override priv typeof unsized virtual union gen
"""
KEYWORDS = frozenset(_KEYWORDS_TEXT.split())
COMMENT_TEXT = st.binary(max_size=80).map(
    lambda b: b.replace(b"\n", b" ").replace(b"\r", b" ").replace(b"\0", b" ")
)
NEWLINE = st.sampled_from([b"\n", b"\r\n"])
START = st.sampled_from([b"", codecs.BOM_UTF8])  # what some editors put before line 1


@st.composite
def braces(draw):
    """A function body: nested braces with arbitrary text lines between."""
    depth = draw(st.integers(min_value=0, max_value=40))
    statement = draw(st.sampled_from([b"", b"x = 1", b"x += y", b"f(x)"]))
    return b"{" * depth + statement + b"}" * depth


@st.composite
def go_program(draw):
    nl = draw(NEWLINE)
    out = [b"// " + c for c in draw(st.lists(COMMENT_TEXT, max_size=3))]
    out.append(b"package p")
    for _ in range(draw(st.integers(min_value=0, max_value=8))):
        doc = [b"// " + c for c in draw(st.lists(COMMENT_TEXT, max_size=3))]
        name = draw(NAMES).encode()
        kind = draw(st.sampled_from(["func", "method", "const", "type", "var", "blank"]))
        if kind == "func":
            item = [b"func " + name + b"(a int,", b"\tb string) error {", draw(braces()), b"}"]
        elif kind == "method":
            recv = draw(NAMES).encode()
            item = [b"func (r *" + recv + b"[K]) " + name + b"() {", draw(braces()), b"}"]
        elif kind == "const":
            specs = []
            for n in draw(st.lists(NAMES, min_size=1, max_size=5)):
                specs += [b"\t// " + c for c in draw(st.lists(COMMENT_TEXT, max_size=2))]
                specs.append(b"\t" + n.encode() + b" = " + str(len(n)).encode())
            item = [b"const (", *specs, b")"]
        elif kind == "type":
            item = [b"type " + name + b" struct {", b"\t// " + draw(COMMENT_TEXT), b"\tX int", b"}"]
        elif kind == "var":
            item = [b"var " + name + b" = func() {", draw(braces()), b"}"]
        else:
            item = []
        out += [b"", *doc, *item]
    return draw(START) + nl.join(out) + nl


@st.composite
def fstring(draw, nl="\n", depth=0):
    """A Python 3.12 f-string or 3.14 t-string: its own quote reused in a field, nested ones,
    ``{x=}``, format specs holding fields, backslashes, and comments, line breaks and empty
    lines inside a field."""
    quote = draw(st.sampled_from(['"', "'", '"""', "'''"]))
    prefix = draw(st.sampled_from(["f", "F", "rf", "Fr", "t", "T", "tr", "Rt"]))
    q = quote[0]
    parts = []
    for _ in range(draw(st.integers(min_value=0, max_value=4))):
        part = draw(st.sampled_from(["text", "quote", "nested", "debug", "spec", "lines", "dict"]))
        if part == "text":
            parts.append(draw(st.sampled_from(["abc", "é", " ", "{{", "}}", "\\t", ":", "#"])))
        elif part == "quote":
            parts.append("{d[" + q + "key" + q + "]}" + "{" + q + "\\n" + q + ".join(x)}")
        elif part == "nested":
            parts.append("{" + (draw(fstring(nl, depth + 1)) if depth < 2 else "x") + "}")
        elif part == "debug":
            parts.append(draw(st.sampled_from(["{x=}", "{x = !r}", "{x=:>10}"])))
        elif part == "spec":
            parts.append(draw(st.sampled_from(["{x:>{width}.{precision}}", "{when:%H:%M}"])))
        elif part == "lines":
            comment = "  # a comment with " + q + " and }"
            empty = nl if draw(st.booleans()) else ""
            parts.append("{(" + nl + empty + "    a" + comment + nl + "    + b" + nl + ")}")
        else:
            parts.append("{ {" + q + "k" + q + ": 1}[" + q + "k" + q + "] }")
    return prefix + quote + "".join(parts) + quote


@st.composite
def python_program(draw):
    nl = draw(NEWLINE)
    # Newer Python's f-strings too, which this one reads only once they are blanked out.
    quoted = st.one_of(
        st.text(max_size=60).map(lambda t: repr(t).encode()),
        fstring(nl.decode()).map(str.encode),
    )
    out = []
    if draw(st.booleans()):
        out.append(draw(quoted))
    for _ in range(draw(st.integers(min_value=0, max_value=8))):
        name = draw(NAMES).encode()
        comments = [b"# " + c for c in draw(st.lists(COMMENT_TEXT, max_size=2))]
        kind = draw(st.sampled_from(["def", "class", "const", "fields", "type"]))
        # Newer Python's type parameters, which this one reads only once they are blanked out.
        params = b"[T: int, *Ts]" if draw(st.booleans()) else b""
        depth = draw(st.integers(min_value=0, max_value=20))
        body = [b"    " * (i + 1) + b"if x:" for i in range(depth)] + [
            b"    " * (depth + 1) + b"pass"
        ]
        if kind == "def":
            deco = [b"@decorator"] if draw(st.booleans()) else []
            doc = [b"    " + draw(quoted)] if draw(st.booleans()) else []
            item = [*deco, b"async def " + name + params + b"(", b"    a,", b"):", *doc, *body]
        elif kind == "class":
            # A method may sit in a branch of the class body, which is walked as module level is.
            branch = [b"    if sys.version_info >= (3, 8):"] if draw(st.booleans()) else []
            indent = b"    " * (len(branch) + 1)
            # Without a docstring or attributes, the class's header ends above the decorator.
            opening = [b"    " + draw(quoted), b"    X: int = 1"] if draw(st.booleans()) else []
            deco = [indent + b"@property"] if draw(st.booleans()) else []
            item = [
                b"class " + name + params + b":",
                *opening,
                *branch,
                *deco,
                indent + b"def m(self):",
                *[indent + line for line in body],
            ]
        elif kind == "fields":
            # A class long enough to be split, with blank lines where a cut may fall.
            field = [b"    f: int", b"    " + draw(quoted), *[b""] * draw(st.integers(0, 2))]
            item = [b"class " + name + b":", *field * draw(st.integers(1, 1200))]
        elif kind == "type":
            item = [b"type " + name + params + b" = (", b"    list[" + draw(quoted) + b"]", b")"]
        else:
            item = [name.upper() + b" = " + draw(quoted)]
        out += [b"", *comments, *item]
    return draw(START) + nl.join(out) + nl


# Rust 2024 lets an unsafe extern block's items say whether using them is safe.
EXTERN_QUALIFIER = st.sampled_from([b"", b"safe ", b"unsafe ", b"unsafe /* c */ "])


RUST_CFGS = [
    b"cfg(test)",
    b"cfg(all(test, unix))",
    b"cfg(all(any(unix, windows), test))",
    b"cfg(all(unix, windows))",
    b"cfg(not(test))",
    b"cfg_attr(test, derive(Debug))",
]


@st.composite
def rust_program(draw):
    nl = draw(NEWLINE)
    out = [b"//! " + c for c in draw(st.lists(COMMENT_TEXT, max_size=3))]
    for _ in range(draw(st.integers(min_value=0, max_value=8))):
        name = draw(NAMES).encode()
        doc = [b"/// " + c for c in draw(st.lists(COMMENT_TEXT, max_size=2))]
        kinds = ["fn", "struct", "impl", "trait", "const", "mod", "extern", "macro", "cfg_if"]
        kind = draw(st.sampled_from(kinds))
        if kind == "fn":
            item = [b"pub fn " + name + b"() {" + draw(braces()) + b"}"]
        elif kind == "struct":
            item = [b"#[derive(Debug)]", b"pub struct " + name + b" {", b"    pub x: u8,", b"}"]
        elif kind == "impl":
            target = name if draw(st.booleans()) else b"dyn " + name + b" + Send"
            item = [
                b"impl " + target + b" {",
                *doc,
                b"    pub fn m(&self) {" + draw(braces()) + b"}",
                b"}",
            ]
        elif kind == "trait":
            item = [b"pub trait " + name + b" {", *doc, b"    fn m(&self);", b"}"]
        elif kind == "const":
            item = [b"pub const " + name.upper() + b": u8 = 1;"]
        elif kind == "extern":
            inner = [
                b"    pub " + draw(EXTERN_QUALIFIER) + b"fn " + name + b"(x: i32)",
                b"        -> i32;",
                b"    pub " + draw(EXTERN_QUALIFIER) + b"static N: u8;",
            ]
            block = draw(st.sampled_from([b"", b"unsafe "])) + b'extern "C" {'
            item = [block, *[b"    " + line for line in doc], *inner, b"}"]
        elif kind == "macro":
            repeated = draw(st.sampled_from([b"$(#[$a])*", b"$(", b"$($x),+ $(", b""]))
            impl_targets = [name, b"$t", b"$crate::" + name, b"&$t"]
            item = [
                b"macro_rules! " + name.lower() + b" {",
                b"    ($t:ty, $(#[$a:meta])*) => {",
                *[b"        " + line for line in doc],
                b"        " + repeated,
                b"        pub struct " + name + b"(Vec<$t>);",
                b"        impl " + draw(st.sampled_from(impl_targets)) + b" {",
                b"            pub fn m(x: $t) $(+ $b)* {" + draw(braces()) + b"}",
                b"        }",
                b"    };",
                b"}",
            ]
        elif kind == "cfg_if":
            cfg = draw(st.sampled_from([b"unix", b"test", b"not(test)", b'feature = "x"']))
            item = [
                b"cfg_if::cfg_if! {",
                b"    if #[cfg(" + cfg + b")] {",
                *[b"        " + line for line in doc],
                b"        pub fn " + name + b"() {" + draw(braces()) + b"}",
                b"    } else {",
                b"        pub mod " + name.lower() + b";",
                b"    }",
                b"}",
            ]
        else:
            item = [
                b"pub mod " + name.lower() + b" {",
                b"    //! inner",
                b"    pub fn f() {}",
                b"}",
            ]
        hidden = [b"#[doc(hidden)]"] if draw(st.booleans()) else []  # rustdoc's, and ours
        # Any item may be compiled only for tests, for no target, or for the library too; its
        # attributes may stand above its doc comment, below it, or between its lines.
        cfgs = draw(st.lists(st.sampled_from(RUST_CFGS), max_size=2))
        above = [b"#[" + c + b"]" for c in cfgs] + hidden
        at = draw(st.integers(min_value=0, max_value=len(doc)))
        out += [b"", *doc[:at], *above, *doc[at:], *item]
    return draw(START) + nl.join(out) + nl


@SETTINGS
@given(data=go_program())
def test_go_programs(data):
    chunk_or_refuse("pkg/file.go", data)


@SETTINGS
@given(data=python_program())
def test_python_programs(data):
    chunk_or_refuse("pkg/module.py", data)


@st.composite
def python_with_fstrings(draw):
    """Valid Python 3.12 whose every declaration holds newer f-strings; what it declares."""
    nl = draw(NEWLINE).decode()
    out, names = [], []
    # A string may be joined after one (``f"..." "more"``), on its line or the next.
    joined = st.sampled_from(["", ' "more"', " f'{x}'", " \\" + nl + "    'more'"])
    for i, first in enumerate(draw(st.lists(fstring(nl), min_size=1, max_size=4))):
        fs = first + draw(joined)
        out += [f"X{i} = {fs}", "", f"def f{i}(a={fs}):", '    """Doc."""', f"    return {fs}", ""]
        names += [f"X{i}", f"f{i}"]
    return (draw(START).decode() + nl.join(out) + nl).encode(), names


@SETTINGS
@given(program=python_with_fstrings())
def test_python_with_newer_fstrings_is_chunked_not_refused(program):
    chunked_as_declared("pkg/module.py", program)
    data, _ = program
    blanked = without_fstrings(data)
    assert blanked is not None
    assert [len(line) for line in blanked.split(b"\n")] == [len(line) for line in data.split(b"\n")]


@SETTINGS
@given(data=rust_program())
def test_rust_programs(data):
    chunk_or_refuse("src/lib.rs", data)


# Each item of an extern block, ``{q}`` its qualifier, with the symbol it is chunked as. A
# foreign type takes no qualifier, and is the crate's API only when ``pub``.
EXTERN_ITEMS = [
    ("pub {q}fn f{i}(x: i32) -> i32;", "f{i}"),
    ("pub {q}static S{i}: u8;", "S{i}"),
    ("pub type T{i};", "T{i}"),
    ("type P{i};", ""),
]


@st.composite
def rust_2024_bindings(draw):
    """An ``unsafe extern`` block of qualified items and foreign types; the names it declares."""
    nl = draw(NEWLINE)
    out, names = [b"/// Before.", b"pub fn before() {}", b'unsafe extern "C" {'], ["before"]
    for i in range(draw(st.integers(min_value=1, max_value=6))):
        doc = [b"    /// " + c for c in draw(st.lists(COMMENT_TEXT, max_size=2))]
        item, name = draw(st.sampled_from(EXTERN_ITEMS))
        qualifier = draw(EXTERN_QUALIFIER).decode()
        out += [*doc, b"    " + item.format(q=qualifier, i=i).encode()]
        names += [name.format(i=i)] if name else []
    out += [b"}", b"/// After.", b"pub struct After;"]
    return draw(START) + nl.join(out) + nl, [*names, "After"]


@SETTINGS
@given(program=rust_2024_bindings())
def test_rust_2024_extern_items_are_chunked_not_lost(program):
    chunked_as_declared("src/lib.rs", program)


# Each item kind with the symbols it is chunked as, ``{n}`` its name.
RUST_ITEMS = {
    b"pub fn {n}() {{}}": ["{n}"],
    b"pub struct {n};": ["{n}"],
    b"pub const {n}: u8 = 1;": ["{n}"],
    b"pub static {n}: u8 = 1;": ["{n}"],
    b"pub trait {n} {{\n    fn m(&self);\n}}": ["{n}", "{n}.m"],
    b"impl {n} {{\n    pub fn m(&self) {{}}\n}}": ["{n}.m"],
    b"#[macro_export]\nmacro_rules! {n} {{\n    () => {{}};\n}}": ["{n}"],
}
# Those of ``RUST_CFGS`` under which the library never compiles an item.
RUST_TEST_ONLY = {
    b"cfg(test)",
    b"cfg(all(test, unix))",
    b"cfg(all(any(unix, windows), test))",
    b"cfg(all(unix, windows))",
}


@st.composite
def rust_items_under_cfgs(draw):
    """Items, each under attributes that may compile it only for tests; the names kept."""
    nl = draw(NEWLINE)
    # Code first: a file whose opening comments say "generated" is refused, and hypothesis
    # draws the chunker's own words for that into the first item's doc comment.
    out, names = [b"use std::fmt;"], []
    for i in range(draw(st.integers(min_value=1, max_value=6))):
        item, symbols = draw(st.sampled_from(sorted(RUST_ITEMS.items())))
        cfgs = draw(st.lists(st.sampled_from(RUST_CFGS), max_size=2))
        doc = [b"/// " + c for c in draw(st.lists(COMMENT_TEXT, max_size=2))]
        at = draw(st.integers(min_value=0, max_value=len(doc)))
        above = [*doc[:at], *(b"#[" + c + b"]" for c in cfgs), *doc[at:]]
        out += [b"", *above, *item.decode().format(n=f"item{i}").encode().split(b"\n")]
        if not RUST_TEST_ONLY.intersection(cfgs):
            names += [s.format(n=f"item{i}") for s in symbols]
    return draw(START) + nl.join(out) + nl, names


@SETTINGS
@given(program=rust_items_under_cfgs())
def test_rust_items_compiled_only_for_tests_are_not_chunked(program):
    chunked_as_declared("src/lib.rs", program)


@st.composite
def rust_template_modules(draw):
    """``macro_rules!`` templates declaring modules under cfgs; the modules compiled plainly."""
    nl = draw(NEWLINE)
    out, compiled = [], []
    for i in range(draw(st.integers(min_value=1, max_value=4))):
        macro_cfgs = draw(st.lists(st.sampled_from(RUST_CFGS), max_size=1))
        exported = draw(st.booleans())
        template = []
        for j in range(draw(st.integers(min_value=1, max_value=3))):
            cfgs = draw(st.lists(st.sampled_from(RUST_CFGS), max_size=2))
            name = b"$name" if draw(st.booleans()) else f"m{i}_{j}".encode()
            doc = [b"        /// " + c for c in draw(st.lists(COMMENT_TEXT, max_size=1))]
            template += [
                *doc,
                *(b"        #[" + c + b"]" for c in cfgs),
                b"        mod " + name + b";",
            ]
            # Neither an exported macro's template nor a module the caller names is read.
            read = not exported and not name.startswith(b"$")
            if read and not RUST_TEST_ONLY.intersection(cfgs + macro_cfgs):
                compiled.append(name.decode())
        out += [
            *(b"#[" + c + b"]" for c in macro_cfgs),
            *([b"#[macro_export]"] if exported else []),
            b"macro_rules! make" + str(i).encode() + b" {",
            b"    ($name:ident) => {",
            *template,
            b"    };",
            b"}",
            b"make" + str(i).encode() + b"!(x);",
        ]
    return draw(START) + nl.join(out) + nl, compiled


@SETTINGS
@given(program=rust_template_modules())
def test_rust_template_modules_are_declared_as_the_library_compiles_them(program):
    data, compiled = program
    declared = module_declarations(data)
    assert sorted(d.name for d in declared if not d.hidden) == sorted(compiled)


def chunked_as_declared(path: str, program: tuple[bytes, list[str]]) -> None:
    """The file is chunked, honestly, into a chunk for each name it declares, in order."""
    data, names = program
    chunks = chunk_code(path, data)
    assert_honest(data, chunks)
    assert [c.symbol for c in chunks] == names


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("pkg/deep.go", b"package p\n\nvar V = " + b"(" * 5000 + b"1" + b")" * 5000 + b"\n"),
        ("pkg/deep.go", b"package p\n\nfunc F() " + b"{" * 5000 + b"}" * 5000 + b"\n"),
        ("pkg/deep.py", b"X = " + b"[" * 5000 + b"]" * 5000 + b"\n"),
        ("pkg/deep.py", b"def f():\n" + b"".join(b" " * i + b"if x:\n" for i in range(1, 300))),
        ("src/deep.rs", b"pub fn f() " + b"{" * 5000 + b"}" * 5000 + b"\n"),
        ("src/deep.rs", b"pub mod a {" * 500 + b"pub const C: u8 = 1;" + b"}" * 500),
        ("pkg/open.go", b"package p\n\n/* never closed\n// F does.\nfunc F() {}\n"),
        ("pkg/open.py", b'"""never closed\ndef f():\n    pass\n'),
        ("src/open.rs", b'pub const S: &str = "never closed;\n'),
    ],
)
def test_deep_nesting_and_unterminated_input(path, data):
    chunk_or_refuse(path, data)


@pytest.mark.parametrize("path", PATHS)
def test_a_ten_thousand_line_file(path):
    if path.endswith(".go"):
        body = "".join(f"// F{i} does {i}.\nfunc F{i}() {{\n}}\n" for i in range(3334))
        data = f"package p\n{body}".encode()
    elif path.endswith(".py"):
        data = "".join(f"def f{i}():\n    '''Do {i}.'''\n\n" for i in range(3334)).encode()
    else:
        data = "".join(f"/// F{i}.\npub fn f{i}() {{}}\n\n" for i in range(3334)).encode()
    assert data.count(b"\n") >= 10_000
    chunks = chunk_code(path, data)
    assert_honest(data, chunks)
    assert len(chunks) >= 3334


@pytest.mark.parametrize(
    ("path", "source", "symbol", "text"),
    [
        (
            "pkg/gauge.go",
            "// Package gauge measures.\npackage gauge\n",
            "package gauge",
            "// Package gauge measures.",
        ),
        ("pkg/gauge.py", '"""Measures."""\n', "module gauge", '"""Measures."""'),
        ("src/lib.rs", "//! Measures.\n\npub fn f() {}\n", "crate", "//! Measures."),
    ],
)
def test_a_byte_order_mark_is_no_part_of_the_first_line(path, source, symbol, text):
    data = codecs.BOM_UTF8 + source.encode()
    chunks = chunk_code(path, data)
    assert_honest(data, chunks)
    first = chunks[0]
    assert (first.symbol, first.text, first.start_line) == (symbol, text, 1)


@pytest.mark.parametrize(
    ("path", "source", "symbol", "text", "lines"),
    [
        ("pkg/f.go", "package p\n\n// F.\nfunc F() {\n}\n", "F", "// F.\nfunc F() {", (3, 4)),
        ("pkg/m.py", '"""M.\n\nMore.\n"""\n', "module m", '"""M.\n\nMore.\n"""', (1, 4)),
        ("src/lib.rs", "/// F.\npub fn f(\n) {\n}\n", "f", "/// F.\npub fn f(\n) {", (1, 3)),
    ],
)
def test_crlf_line_endings_are_stored_as_line_feeds(path, source, symbol, text, lines):
    data = source.replace("\n", "\r\n").encode()
    chunks = {c.symbol: c for c in chunk_code(path, data)}
    assert_honest(data, chunks.values())
    assert (chunks[symbol].text, (chunks[symbol].start_line, chunks[symbol].end_line)) == (
        text,
        lines,
    )
