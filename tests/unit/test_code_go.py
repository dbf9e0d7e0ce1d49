import pytest

from bot.corpus.code import Unchunkable, chunk_code
from bot.corpus.code.go import chunk_go
from bot.corpus.code.source import CEILING_BYTES
from tests.unit.codechecks import assert_honest, lines_of, spans

APP = b"""// Copyright notice, not documentation.

// Package cli provides a minimal framework for command line applications.
//
// It parses flags and runs actions.
package cli

import (
	"context"
	"os"
)

// defaultTakeCount is how many items a page takes when the caller gives no limit.
const defaultTakeCount = 10

// List of available access levels.
const (
	NoPermissions         AccessLevelValue = 0
	MaintainerPermissions AccessLevelValue = 40 // can push to protected branches

	// OwnerPermissions may delete the project.
	OwnerPermissions AccessLevelValue = 50
	sectionTop, sectionBottom = 2, 3
)

// App is the main structure of a cli application.
type App struct {
	// Name of the program.
	Name string `json:"name"`
	usage string
}

type internalState struct{ n int }

// OsExiter is the function used when the app exits.
var OsExiter = os.Exit

var hidden = 1

// HelpPrinter prints help for the app.
var HelpPrinter = func(w io.Writer, templ string, data interface{}) {
	printHelp(w, templ, data)
}

// RunContext is like Run except it takes a Context that will be
// passed to its commands and sub-commands.
func (a *App) RunContext(ctx context.Context,
	arguments []string) (err error) {
	return a.run(ctx, arguments)
}

// Name returns the app's name.
func (a App) Title() string { return a.Name }

func (s *internalState) Exported() {}

// NewApp creates a new cli Application.
func NewApp() *App {
	return &App{}
}

func tidyUp() {}

// Push adds a value.
func (l *List[T]) Push(v T) {
	l.items = append(l.items, v)
}
"""


def by_symbol(data: bytes, path: str = "app.go") -> dict[str, object]:
    chunks = chunk_code(path, data)
    assert_honest(data, chunks)
    return {c.symbol: c for c in chunks}


def test_the_package_doc_comes_first_titled_by_the_package():
    chunks = chunk_code("app.go", APP)
    first = chunks[0]
    assert (first.heading, first.symbol, first.heading_path) == (
        "package cli",
        "package cli",
        ("package cli",),
    )
    assert first.text == lines_of(APP, 3, 5)
    assert "Copyright" not in first.text


def test_exported_symbols_are_kept_and_unexported_ones_left_out():
    symbols = by_symbol(APP)
    assert set(symbols) == {
        "package cli",
        "defaultTakeCount",
        "NoPermissions",
        "MaintainerPermissions",
        "OwnerPermissions",
        "sectionTop",
        "App",
        "OsExiter",
        "HelpPrinter",
        "App.RunContext",
        "App.Title",
        "NewApp",
        "List.Push",
    }


def test_a_function_holds_its_doc_and_signature_but_not_its_body():
    chunk = by_symbol(APP)["NewApp"]
    assert chunk.text == "// NewApp creates a new cli Application.\nfunc NewApp() *App {"
    assert "return" not in chunk.text


def test_a_method_on_a_pointer_receiver_is_type_dot_method_with_its_whole_signature():
    chunk = by_symbol(APP)["App.RunContext"]
    assert chunk.heading == "App.RunContext"
    assert chunk.text.splitlines()[0].startswith("// RunContext is like Run")
    assert chunk.text.endswith("arguments []string) (err error) {")
    assert chunk.terms == "run context"
    start = (
        APP.decode()
        .split("\n")
        .index("// RunContext is like Run except it takes a Context that will be")
        + 1
    )
    assert (chunk.start_line, chunk.end_line) == (start, start + 3)


def test_value_receivers_and_generic_receivers_name_their_type():
    symbols = by_symbol(APP)
    assert symbols["App.Title"].text.endswith("func (a App) Title() string { return a.Name }")
    assert symbols["List.Push"].text == "// Push adds a value.\nfunc (l *List[T]) Push(v T) {"


def test_a_type_keeps_its_fields_and_their_comments():
    chunk = by_symbol(APP)["App"]
    assert "// Name of the program." in chunk.text
    assert chunk.text.endswith("}")
    assert "usage string" in chunk.text


def test_every_constant_is_kept_with_its_value_and_split_name():
    symbols = by_symbol(APP)
    take = symbols["defaultTakeCount"]
    assert take.text.endswith("const defaultTakeCount = 10")
    assert take.text.startswith("// defaultTakeCount is how many items")
    assert take.terms == "default take count"
    assert "default take count" not in take.text


def test_grouped_constants_are_one_chunk_each():
    symbols = by_symbol(APP)
    maintainer = symbols["MaintainerPermissions"]
    assert (
        maintainer.text
        == "\tMaintainerPermissions AccessLevelValue = 40 // can push to protected branches"
    )
    owner = symbols["OwnerPermissions"]
    assert (
        owner.text
        == "\t// OwnerPermissions may delete the project.\n\tOwnerPermissions AccessLevelValue = 50"
    )
    both = symbols["sectionTop"]
    assert both.terms == "section top bottom"


def test_a_declaration_of_several_names_is_known_by_its_exported_one():
    source = (
        b"package x\n\nconst (\n\t_ = iota\n\tFirst\n)\n\nvar internalCount, PublicCount = 1, 2\n"
    )
    chunks = {c.symbol: c for c in chunk_go("x.go", source)}
    assert list(chunks) == ["First", "PublicCount"]  # the blank identifier names nothing
    assert chunks["PublicCount"].terms == "public count internal"


def test_a_grouped_constant_without_its_own_comment_carries_the_groups_summary():
    symbols = by_symbol(APP)
    assert symbols["MaintainerPermissions"].heading_path == (
        "List of available access levels.",
        "MaintainerPermissions",
    )
    assert symbols["OwnerPermissions"].heading_path == ("OwnerPermissions",)
    assert symbols["defaultTakeCount"].heading_path == ("defaultTakeCount",)


def test_a_grouped_constant_without_a_value_says_which_type_and_value_it_repeats():
    source = b"""package units

// Sizes of storage.
const (
	_ = iota // the first spec still counts for iota
	KiB Size = 1 << (10 * iota)
	MiB
	// GiB is the largest.
	GiB
)

const (
	Red = "red"
	Crimson
)
"""
    chunks = {c.symbol: c for c in chunk_go("units.go", source)}
    assert_honest(source, list(chunks.values()))
    assert chunks["KiB"].heading_path == ("Sizes of storage.", "KiB")
    assert chunks["MiB"].text == "\tMiB"  # the stored text stays the lines it cites
    assert chunks["MiB"].heading_path == (
        "Sizes of storage.",
        "implicitly Size = 1 << (10 * iota), iota = 2",
        "MiB",
    )
    # A comment of its own replaces the group's summary, never the value it repeats.
    assert chunks["GiB"].heading_path == ("implicitly Size = 1 << (10 * iota), iota = 3", "GiB")
    assert chunks["Crimson"].heading_path == ('implicitly = "red"', "Crimson")


def test_a_constant_group_can_be_cut_as_one_block_with_every_name_searchable():
    chunks = chunk_go("app.go", APP, const_groups="block")
    assert_honest(APP, chunks)
    block = next(c for c in chunks if c.symbol == "NoPermissions")
    assert block.text.startswith("// List of available access levels.\nconst (")
    assert block.text.endswith(")")
    assert "maintainer" in block.terms.split()
    assert "bottom" in block.terms.split()
    assert not any(c.symbol == "MaintainerPermissions" for c in chunks)


def test_a_variable_holding_a_function_stops_where_the_body_opens():
    symbols = by_symbol(APP)
    printer = symbols["HelpPrinter"]
    assert printer.text.endswith(
        "var HelpPrinter = func(w io.Writer, templ string, data interface{}) {"
    )
    assert "printHelp" not in printer.text
    assert symbols["OsExiter"].text.endswith("var OsExiter = os.Exit")


def test_a_function_literal_deep_inside_a_value_stops_it_where_its_body_opens():
    source = b"""package stdlib

// UpperFunc is a function that converts a string to upper case.
var UpperFunc = function.New(&function.Spec{
	Description: `Returns the given string with every letter in upper case.`,
	Params: []function.Parameter{
		{Name: "str", Type: cty.String},
	},
	Type: function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, retType cty.Type) (cty.Value, error) {
		in := args[0].AsString()
		return cty.StringVal(strings.ToUpper(in)), nil
	},
})

// Hooks run in turn; their type names a function, which has no body.
var Hooks = []func(){
	first,
	second,
}
"""
    symbols = by_symbol(source)
    upper = symbols["UpperFunc"]
    assert upper.text.endswith(
        "\tImpl: func(args []cty.Value, retType cty.Type) (cty.Value, error) {"
    )
    assert "Returns the given string" in upper.text
    assert "ToUpper" not in upper.text
    assert (upper.start_line, upper.end_line) == (3, 10)
    assert symbols["Hooks"].text.endswith("\tsecond,\n}")


def test_a_trailing_comment_of_the_line_above_is_not_a_doc():
    source = b"package p\n\nvar A = 1 // about A\nvar B = 2\n"
    assert by_symbol(source)["B"].text == "var B = 2"


def test_a_blank_line_separates_a_comment_from_the_declaration():
    source = b"package p\n\n// stray remark\n\n// F does f.\nfunc F() {}\n"
    assert by_symbol(source)["F"].text == "// F does f.\nfunc F() {}"


def test_a_file_without_a_package_doc_starts_with_its_first_symbol():
    source = b"package p\n\n// F does f.\nfunc F() {}\n"
    assert [c.symbol for c in chunk_code("p.go", source)] == ["F"]


@pytest.mark.parametrize(
    "header",
    [
        b"// Code generated by protoc-gen-go. DO NOT EDIT.\n",
        b"// Code generated by protoc-gen-go.\n// source: x.proto\n// DO NOT EDIT!\n",
        b"//line scan_tokens.rl:1\n",
    ],
)
def test_generated_files_are_skipped(header):
    with pytest.raises(Unchunkable, match="generated"):
        chunk_code("x.go", header + b"\npackage p\n\nfunc F() {}\n")


def test_a_header_that_only_mentions_generated_code_is_not_generated():
    source = b"// Package p wraps the generated clients.\npackage p\n\n// F does f.\nfunc F() {}\n"
    assert [c.symbol for c in chunk_code("p.go", source)] == ["package p", "F"]


def test_a_generated_marker_after_the_package_clause_does_not_count():
    source = b"package p\n\n// Code generated by hand. DO NOT EDIT.\nfunc F() {}\n"
    assert [c.symbol for c in chunk_code("x.go", source)] == ["F"]


def test_a_file_with_nothing_that_parses_is_skipped_with_the_line():
    with pytest.raises(Unchunkable, match="Go syntax error near line 3"):
        chunk_code("x.go", b"package p\n\nfunc F( {\n")


def test_an_error_in_a_body_of_a_file_with_nothing_worth_keeping_is_no_syntax_error():
    # Nothing is lost to the error, so the file is an ordinary "nothing documented" skip.
    assert chunk_code("main.go", b"package main\n\nfunc main() {\n\tx := [}\n}\n") == []


def test_a_declaration_that_does_not_parse_is_left_out_and_the_rest_kept():
    source = b"package p\n\n// A is fine.\nfunc A() {}\n\n// B is not.\nfunc B( {\n"
    chunks = chunk_code("x.go", source)
    assert spans(chunks) == [("A", 3, 4)]


def test_every_declaration_an_error_touches_is_left_out_not_only_the_first():
    source = (
        b"package p\n\n// A is fine.\nfunc A() {}\n\n// B is not.\nfunc B(x int {\n}\n\n"
        b"// C is fine.\nfunc C() {}\n\n// D is not.\nfunc D(y int {\n}\n\n"
        b"// E is fine.\nfunc E() {}\n"
    )
    chunks = chunk_code("x.go", source)
    assert spans(chunks) == [
        ("A", 3, 4),
        ("C", 10, 11),
        ("E", 17, 18),
    ]


def test_a_file_without_a_package_clause_is_skipped():
    with pytest.raises(Unchunkable, match="no package clause"):
        chunk_code("x.go", b"// just a comment\n")


def test_a_symbol_over_the_ceiling_is_split_into_honest_parts_never_truncated():
    fields = "".join(f"\t// Field{i} is documented.\n\tField{i} string\n" for i in range(1200))
    source = f"package p\n\n// Big has many fields.\ntype Big struct {{\n{fields}}}\n".encode()
    chunks = [c for c in chunk_code("big.go", source) if c.symbol == "Big"]
    assert_honest(source, chunks)
    assert len(chunks) > 1
    assert all(c.end_byte - c.start_byte <= CEILING_BYTES for c in chunks)
    assert "\n".join(c.text for c in chunks) == lines_of(source, 3, chunks[-1].end_line)
    assert [c.start_line for c in chunks[1:]] == [c.end_line + 1 for c in chunks[:-1]]


def test_a_symbol_of_exactly_the_ceiling_is_one_chunk():
    head = 'const Long = "'
    value = "x" * (CEILING_BYTES - len(head) - 1)
    exact = f'package p\n\n{head}{value}"\n'.encode()
    assert [c.end_byte - c.start_byte for c in chunk_code("c.go", exact)] == [CEILING_BYTES]
    over = f'package p\n\n{head}{value}y"\n'.encode()
    assert len(chunk_code("c.go", over)) == 2


def test_a_single_line_over_the_ceiling_is_cut_between_characters():
    value = "é" * (CEILING_BYTES)  # two bytes each
    source = f'package p\n\nconst Long = "{value}"\n'.encode()
    chunks = chunk_code("long.go", source)
    assert_honest(source, chunks)
    assert len(chunks) == 3
    assert all(c.start_line == c.end_line == 3 for c in chunks)
    assert "".join(c.text for c in chunks) == f'const Long = "{value}"'


def test_crlf_line_endings_are_stored_as_line_feeds_with_honest_spans():
    source = b"package p\r\n\r\n// F does f.\r\nfunc F() {\r\n}\r\n"
    chunk = by_symbol(source)["F"]
    assert chunk.text == "// F does f.\nfunc F() {"
    assert (chunk.start_line, chunk.end_line) == (3, 4)
    assert source[chunk.start_byte : chunk.end_byte] == b"// F does f.\r\nfunc F() {"


def test_invalid_utf8_is_replaced_not_fatal():
    source = b"package p\n\n// F says \xff\xfe hi.\nfunc F() {}\n"
    chunk = by_symbol(source)["F"]
    assert "\ufffd" in chunk.text


def test_code_ranks_below_prose_and_deprecated_or_private_symbols_lower_still():
    from bot.corpus.code import chunk_code
    from bot.corpus.code.source import CODE_WEIGHT, DEPRECATED_WEIGHT, UNEXPORTED_WEIGHT

    source = (
        b"package p\n\n"
        b"// Old does it.\n//\n// Deprecated: use New.\nfunc Old() {}\n\n"
        b"// New does it.\nfunc New() {}\n\n"
        b"// defaultTimeout is used when none is given.\nconst defaultTimeout = 5\n"
    )
    weights = {c.symbol: c.weight for c in chunk_code("p.go", source)}
    assert weights == {
        "Old": CODE_WEIGHT * DEPRECATED_WEIGHT,
        "New": CODE_WEIGHT,
        "defaultTimeout": CODE_WEIGHT * UNEXPORTED_WEIGHT,
    }


def test_bare_enumeration_members_rank_at_half_and_constants_that_say_something_do_not():
    from bot.corpus.code import chunk_code
    from bot.corpus.code.source import CODE_WEIGHT, ENUM_MEMBER_WEIGHT, UNEXPORTED_WEIGHT

    source = (
        b"package p\n\n"
        b"type Kind int\n\n"
        b"type Token rune\n\n"
        b"const (\n"
        b"\tCounted Kind = iota\n"
        b"\tRepeated\n"
        b"\tShifted = 1 << iota\n"
        b"\tOpening Token = '{'\n"
        b"\tClosing\n"
        b"\tcounted Kind = iota\n"
        b"\t// Documented has its own comment.\n"
        b"\tDocumented Kind = iota\n"
        b"\tRemarked Kind = iota // and a comment beside it\n"
        b"\tComma rune = ','\n"
        b"\tBracketed (rune) = ';'\n"
        b"\tWire Kind = 7\n"
        b"\tRepeatsWire\n"
        b'\tName Token = "name"\n'
        b'\tQuoted = "counted with iota"\n'
        b'\tMixed, Named = iota, "name"\n'
        b")\n\n"
        b"const Alone Kind = iota\n\n"
        b"var (\n\tValueless Kind\n)\n"
    )
    weights = {c.symbol: c.weight for c in chunk_code("p.go", source) if c.symbol}
    bare = CODE_WEIGHT * ENUM_MEMBER_WEIGHT
    assert weights == {
        "Kind": CODE_WEIGHT,
        "Token": CODE_WEIGHT,
        "Counted": bare,
        "Repeated": bare,
        "Shifted": bare,
        "Opening": bare,
        "Closing": bare,
        "counted": bare * UNEXPORTED_WEIGHT,
        "Documented": CODE_WEIGHT,
        "Remarked": CODE_WEIGHT,
        "Comma": CODE_WEIGHT,
        "Bracketed": CODE_WEIGHT,
        "Wire": CODE_WEIGHT,
        "RepeatsWire": CODE_WEIGHT,
        "Name": CODE_WEIGHT,
        "Quoted": CODE_WEIGHT,
        "Mixed": CODE_WEIGHT,
        "Alone": CODE_WEIGHT,
        "Valueless": CODE_WEIGHT,
    }
