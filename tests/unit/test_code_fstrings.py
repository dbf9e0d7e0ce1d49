"""Newer Python's f-strings blanked for the parse: same lines, same byte widths, still f-strings."""

import ast

import pytest

from bot.corpus.code.fstrings import blank_fstrings, without_fstrings


def line_widths(text: str) -> list[int]:
    return [len(line.encode()) for line in text.splitlines(keepends=True)]


def blanked(source: str) -> str:
    """``source`` blanked, checked to keep every line's bytes and to parse here."""
    out = blank_fstrings(source)
    assert out is not None
    assert line_widths(out) == line_widths(source)
    assert [line[-1:] for line in out.splitlines(True)] == [
        line[-1:] for line in source.splitlines(True)
    ]
    ast.parse(out)
    return out


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('x = f"{d["k"]}"\n', 'x = f"        "\n'),  # the string's own quote in a field
        ('x = f"{f"{f"{y}"}"}"\n', 'x = f"             "\n'),  # nested, same quote
        ("x = f'{x=}'\n", "x = f'    '\n"),
        ("x = f'{x!r:>{width}.{precision}}'\n", "x = f'                          '\n"),
        ('x = rf"\\{d["k"]}"\n', 'x = rf"         "\n'),  # a backslash escapes no brace
        ('x = f"\\\\{d["k"]}"\n', 'x = f"          "\n'),  # nor does an escaped backslash
        ('x = f"\\"{d["k"]}"\n', 'x = f"          "\n'),  # an escaped quote ends nothing
        ('x = f"{{}} {"\\n".join(y)}"\n', 'x = f"                   "\n'),
        ('x = f"{{" + d["k"] + "}}"\n', 'x = f"  " + d["k"] + "}}"\n'),  # no field: a brace
        ("x = f'{(lambda: d['k'])()}'\n", "x = f'                    '\n"),  # a colon in brackets
        ('x = f"\\N{EM DASH}{d["k"]}"\n', 'x = f"                   "\n'),  # a named character
        ('x = f"é{"é"}"; y = 1\n', 'x = f"        "; y = 1\n'),  # a space per byte
        ('x = Rf"a" F"{b}" "c"\n', 'x = Rf" " F"   " "c"\n'),
    ],
)
def test_the_body_is_blanked_and_the_prefix_and_quotes_kept(source, expected):
    assert blanked(source) == expected


def test_a_triple_quoted_fstring_keeps_its_lines():
    source = 'x = f"""a\n{x\n  # a comment, with a " and a }\n}\n"""\nY = 1\n'
    assert blanked(source) == 'x = f""" \n  \n                               \n \n"""\nY = 1\n'


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_single_quoted_fstring_over_lines_continues_with_backslashes(newline):
    source = 'x = f"{\n    a  # why "\n    + b\n}"\nY = 1\n'.replace("\n", newline)
    out = blanked(source)
    assert out == 'x = f"\\\n             \\\n      \\\n "\nY = 1\n'.replace("\n", newline)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_single_quoted_fstring_with_an_empty_line_becomes_a_call_in_brackets(newline):
    # No backslash fits on an empty line; brackets carry the expression over it instead.
    source = 'x = Rf"é{\n\n    a\n}"  # y\nY = 1\n'.replace("\n", newline)
    out = blanked(source)
    assert out == 'x = ""(   \n\n     \n )  # y\nY = 1\n'.replace("\n", newline)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # A string written right after one: the brackets close at the end of the last.
        ('x = f"{\n\na}" "b"\n', 'x = ""(\n\n      )\n'),
        (
            'x = (f"{\n\na}"  # why\n     rb"""b""" f"{c}")\n',
            'x = (""(\n\n          \n                    ))\n',
        ),
        ('x = f"{\n\na}" \\\n    "b"\n', 'x = ""(\n\n     \n      )\n'),
        ('x = f"{\n\na}" f"{\n\nb}"\n', 'x = ""(\n\n       \n\n  )\n'),
        # One written before needs nothing: it is called, as the blank string after it is.
        ('x = "b" f"{\n\na}"\n', 'x = "b" ""(\n\n  )\n'),
        # A line end outside brackets ends the statement; a string below it is another one.
        ('x = f"{\n\na}"\n"b"\n', 'x = ""(\n\n  )\n"b"\n'),
        ('x = f"{\n\na}"  # c\n"b"\n', 'x = ""(\n\n  )  # c\n"b"\n'),
    ],
)
def test_strings_written_after_one_with_an_empty_line_go_into_its_brackets(source, expected):
    assert blanked(source) == expected


def test_an_fstring_with_an_empty_line_first_in_a_body_is_still_no_docstring():
    tree = ast.parse(blanked('def f():\n    f"{\n\n}"\n    return 1\n'))
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    assert ast.get_docstring(function) is None


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('x = t"Hello {name}"\n', 'x = f"            "\n'),
        ('x = T"{d["k"]}" + Tr"\\{a}" + rT\'{b}\'\n', 'x = F"        " + Fr"    " + rF\'   \'\n'),
        ('x = tR"""{a\n}"""\n', 'x = fR"""  \n """\n'),
        ('x = f"{t"{a}"}" + t"{f"{a}"}"\n', 'x = f"        " + f"        "\n'),  # nested
        ('x = t"{\n\n a}"\n', 'x = ""(\n\n   )\n'),
    ],
)
def test_a_template_string_is_blanked_as_an_fstring(source, expected):
    assert blanked(source) == expected


@pytest.mark.parametrize(
    "source",
    [
        'x = bt"{a}"\n',  # t combines with r alone
        'x = ft"{a}"\n',
        'x = tu"{a}"\n',
        'x = rtr"{a}"\n',
        'x = at"{a}"\n',  # a name ending in t is no prefix
        'x = t "{a}"\n',  # nor is a name apart from the quote
    ],
)
def test_only_a_whole_template_prefix_makes_a_template_string(source):
    assert blank_fstrings(source) is None


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_string_continued_with_a_backslash_goes_on(newline):
    source = 'x = "a\\\nb" + f"{d["k"]}\\\n{y}"\nY = 1\n'.replace("\n", newline)
    assert blanked(source) == 'x = "a\\\nb" + f"        \\\n   "\nY = 1\n'.replace("\n", newline)


def test_an_fstring_first_in_a_body_is_still_no_docstring():
    tree = ast.parse(blanked('def f():\n    f"{x["k"]}"\n    return 1\n'))
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    assert isinstance(function.body[0].value, ast.JoinedStr)  # type: ignore[attr-defined]


def test_fstrings_inside_plain_strings_and_comments_are_left_alone():
    source = 'x = \'f"{a}"\'  # f"{b["c"]}"\nz = b\'{x}\'\n'
    assert blank_fstrings(source) is None


@pytest.mark.parametrize(
    "source",
    [
        'x = f"{a\n',  # a field never closed
        'x = f"abc\n',  # a string never closed
    ],
)
def test_text_that_cannot_be_scanned_is_refused(source):
    with pytest.raises(SyntaxError):
        blank_fstrings(source)


def test_bytes_keep_their_encoding_and_a_comment_that_is_not_valid_in_it():
    data = b'# \xff\xfe\nx = f"{d["\xc3\xa9"]}"\n'
    assert without_fstrings(data) == b'# \xff\xfe\nx = f"         "\n'
    latin = b'# -*- coding: latin-1 -*-\nx = f"{d["\xe9"]}"\n'
    assert without_fstrings(latin) == b'# -*- coding: latin-1 -*-\nx = f"        "\n'
    assert without_fstrings(b'\xef\xbb\xbfx = f"{d["k"]}"\n') == b'\xef\xbb\xbfx = f"        "\n'
    assert without_fstrings(b'x = f"{a\n') is None
    assert without_fstrings(b"x = 1\n") is None
