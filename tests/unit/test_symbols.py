from bot.index.symbols import (
    Declared,
    Route,
    SymbolTable,
    fold,
    in_named_package,
    is_named,
    mentioned_names,
    named_keys,
    pins,
    qualified_names,
)

TABLE = SymbolTable(
    [
        Declared(1, "tracker", "FaceTrack.update_with_detection"),
        Declared(2, "tracker", "FaceTrack"),
        Declared(3, "tracker", "update_detections"),
        Declared(4, "grpc", "WithBlock"),
        Declared(5, "cli", "Context.FlagNames"),
        Declared(6, "cobra", "Command.FlagNames"),
        Declared(7, "cty", "Value.IsWhollyKnown"),
        Declared(8, "cty", "package cty"),
        Declared(9, "gitlab", "NewOAuthClient"),
    ]
)


def test_fold_ignores_style():
    assert fold("updateWithDetection") == fold("update_with_detection") == "updatewithdetection"
    assert fold("UpdateWithDetection") == "updatewithdetection"
    assert fold("FaceTrack.update_with_detection") == "facetrack.updatewithdetection"


def test_prose_is_not_a_name():
    assert mentioned_names("How do I Run the App with Context, e.g. in tests?") == []


def test_code_like_words_are_names():
    question = (
        "does `run` differ from c.FlagNames() or update_with_detection or WithBlock, or Map.Lookup?"
    )
    assert mentioned_names(question) == [
        "run",
        "c.FlagNames",
        "update_with_detection",
        "WithBlock",
        "Map.Lookup",
    ]


def test_the_ends_of_a_longer_code_span_and_file_names_are_not_names():
    question = "why does `app --verbose sub` fail, and what is in `things.*.id` or go.mod?"
    assert mentioned_names(question) == []
    assert mentioned_names("the generated foo_grpc.pb.go calls `Serve()`") == ["Serve"]


def test_exact_name_reaches_the_declaration():
    [hits] = TABLE.named("what does update_with_detection do?")
    assert (hits[0].chunk_id, hits[0].route, hits[0].whole) == (1, Route.EXACT, False)


def test_qualified_name_matches_the_whole_symbol():
    [hits] = TABLE.named("FaceTrack.update_with_detection returns what?")
    assert (hits[0].chunk_id, hits[0].whole) == (1, True)


def test_another_style_folds_onto_the_same_key():
    [hits] = TABLE.named("when is updateWithDetection called?")
    assert (hits[0].chunk_id, hits[0].route) == (1, Route.STYLE)


def test_one_edit_is_still_the_name():
    [hits] = TABLE.named("what does update_with_detecton do?")
    assert (hits[0].chunk_id, hits[0].route, hits[0].edits) == (1, Route.MISSPELLED, 1)


def test_two_edits_only_for_long_names():
    [hits] = TABLE.named("what does update_wth_detecton do?")
    assert (hits[0].chunk_id, hits[0].edits) == (1, 2)
    assert TABLE.named("what is `WithBlok2x`?") == []


def test_short_names_are_never_guessed():
    assert TABLE.named("what is `WthBlck`?") == []


def test_package_docs_are_not_named_symbols():
    assert TABLE.named("what is `package cty`?") == []
    assert len(TABLE) == 8


def test_variable_qualifier_falls_back_to_the_member():
    [hits] = TABLE.named("c.FlagNames() returns what?")
    assert {h.chunk_id for h in hits} == {5, 6}


PACKAGES = SymbolTable(
    [
        Declared(1, "cty", "package ctyjson", "cty/json/doc.go"),
        Declared(2, "cty", "Marshal", "cty/json/marshal.go"),
        Declared(3, "cty", "Marshal", "cty/msgpack/marshal.go"),
        Declared(4, "cty", "Length", "cty/function/stdlib/collection.go"),
        Declared(5, "cty", "Value.Length", "cty/value_ops.go"),
        Declared(6, "requests", "get", "requests/api.py"),
        Declared(7, "requests", "Session.get", "requests/sessions.py"),
    ]
)


def test_a_package_qualifier_keeps_the_symbols_of_that_package():
    # Go names a package by its clause, which need not be its folder's name.
    [hits] = PACKAGES.named("ctyjson.Marshal fails on marked values")
    assert [h.chunk_id for h in hits] == [2]
    [hits] = PACKAGES.named("what does msgpack.Marshal return?")
    assert [h.chunk_id for h in hits] == [3]
    # A Python package is named by its folder; the function comes before the method.
    assert pins(PACKAGES.named("requests.get with a timeout?"), {}, 1) == [6]


def test_a_rust_path_is_read_as_a_dotted_name():
    question = 'Version::parse("1.0") fails; is Ok::<_, anyhow::Error> needed? serde::de::Visitor?'
    assert mentioned_names(question) == ["Version.parse", "anyhow.Error", "serde.de.Visitor"]
    assert qualified_names("does `anyhow::Error` keep a backtrace?") == {("anyhow", "error")}


def test_a_rust_crate_qualifier_keeps_the_items_of_that_crate_wherever_they_are_declared():
    rust = SymbolTable(
        [
            Declared(1, "anyhow", "Error", "src/error.rs"),
            Declared(2, "anyhow", "Chain.Error", "src/chain.rs"),
            Declared(3, "serde", "Error", "src/de/mod.rs"),
            Declared(4, "clap", "Error", "clap_builder/src/error/mod.rs"),
        ]
    )
    # The crate is a package, not a variable whose method is called: its item comes first.
    [hits] = rust.named("how do I downcast an anyhow::Error?")
    assert [h.chunk_id for h in hits] == [1, 2]
    [hits] = rust.named("what does clap_builder::Error print?")
    assert [h.chunk_id for h in hits] == [4]
    [hits] = rust.named("what does clap::Error print?")
    assert [h.chunk_id for h in hits] == [4]


def test_a_rust_path_from_the_crate_itself_names_its_item_not_a_method():
    rust = SymbolTable(
        [
            Declared(1, "semver", "parse", "src/lib.rs"),
            Declared(2, "semver", "Version.parse", "src/version.rs"),
        ]
    )
    for written in ("crate::parse", "self::parse", "super::parse"):
        assert mentioned_names(f"what does {written} return?") == ["parse"]
        [hits] = rust.named(f"what does {written} return?")
        assert hits[0].chunk_id == 1, written
    assert mentioned_names("is crate::de::Visitor public?") == ["de.Visitor"]
    # Self is a type: what it qualifies is a method.
    assert pins(rust.named("what does Self::parse return?"), {}, 1) == [2]


def test_a_rust_path_outside_the_index_reaches_nothing():
    table = SymbolTable(
        [
            Declared(1, "exec", "ExitError.Error", "exec/exec.go"),
            Declared(2, "geometry", "Vector", "geometry/vector.go"),
            Declared(3, "semver", "Error", "src/error.rs"),
            Declared(4, "regex", "Regex.new", "src/re.rs"),
        ]
    )
    assert table.named("how does std::io::Error display?") == []
    assert table.named("why is std::vector slow?") == []
    # A type the index does not hold: not any indexed type's method of that name.
    assert table.named("does HashMap::new allocate?") == []
    assert [h.chunk_id for h in table.named("does Regex::new compile?")[0]] == [4]
    [hits] = table.named("can I turn a std::io::Error into a semver::Error?")
    assert [h.chunk_id for h in hits] == [3]
    # Written with a dot, an unknown qualifier is still a variable calling a method.
    [hits] = table.named("err.Error() says what?")
    assert [h.chunk_id for h in hits] == [1]


def test_a_rust_crate_is_named_with_underscores_for_its_dashes():
    parser = ("Parser", "src/parser.rs", "tree-sitter")
    assert in_named_package(*parser, qualified_names("tree_sitter::Parser"))
    workspace = ("Parser", "tree-sitter-cli/src/parser.rs", "tools")
    assert in_named_package(*workspace, qualified_names("tree_sitter_cli::Parser"))
    hybrid = SymbolTable([Declared(1, "tree-sitter", "Parser", "src/parser.rs")])
    [hits] = hybrid.named("what does tree_sitter::Parser parse?")
    assert [h.chunk_id for h in hits] == [1]


def test_a_rust_item_is_named_with_its_crate_or_its_module():
    anyhow = ("Error", "src/error.rs", "anyhow")
    assert in_named_package(*anyhow, qualified_names("anyhow::Error"))
    assert in_named_package(*anyhow, qualified_names("error::Error"))
    assert not in_named_package(*anyhow, qualified_names("serde::Error"))
    visitor = ("Visitor.visit_str", "src/de/mod.rs", "serde")
    assert in_named_package(*visitor, qualified_names("serde::de::Visitor"))
    assert in_named_package(*visitor, qualified_names("serde::Visitor"))
    command = ("Command.new", "clap_builder/src/builder/command.rs", "clap")
    assert in_named_package(*command, qualified_names("clap::Command"))
    assert in_named_package(*command, qualified_names("clap_builder::Command"))
    # A crate root names no module of its own: `lib::Error` is no crate's path.
    assert not in_named_package("Error", "src/lib.rs", "anyhow", qualified_names("lib::Error"))
    hybrid = SymbolTable([Declared(1, "anyhow", "Error", "src/lib.rs")])
    assert hybrid.named("is lib::Error the same?") == []
    assert [h.chunk_id for h in hybrid.named("is anyhow::Error the same?")[0]] == [1]


def test_a_variable_qualifier_calls_a_method_not_a_function():
    assert pins(PACKAGES.named("`val.Length()` panics on a string"), {}, 1) == [5]


def test_lexical_rank_breaks_ties_between_equal_hits():
    named = TABLE.named("c.FlagNames() returns what?")
    assert pins(named, {6: 0, 5: 3}, 2) == [6]
    assert pins(named, {5: 1}, 2) == [5]


def test_pins_take_the_best_hit_of_each_name_up_to_a_limit():
    named = TABLE.named("WithBlock vs NewOAuthClient vs updateWithDetection")
    assert pins(named, {}, 2) == [4, 9]
    assert pins(named, {}, 5) == [4, 9, 1]
    assert pins(named, {}, 0) == []


def test_described_ranks_symbols_by_their_own_words():
    ranked = TABLE.described("which function updates a face track with a detection?")
    assert ranked[0] == 1
    assert 2 in ranked  # FaceTrack: both of its words
    assert 4 not in ranked


def test_described_needs_two_words():
    assert TABLE.described("detection") == []


def test_each_name_counts_once_and_a_skipped_word_stops_nothing():
    question = "e.g. WithBlock, then `WithBlock` again, then go.mod and c.Do() and `x`"
    assert mentioned_names(question) == ["WithBlock", "c.Do", "x"]
    assert mentioned_names("the `yaml` option") == ["yaml"]  # an extension alone is a name


def test_a_declaration_without_a_symbol_stops_no_other():
    table = SymbolTable([Declared(1, "r", ""), Declared(2, "r", "WithBlock")])
    assert [[h.chunk_id for h in hits] for hits in table.named("WithBlock?")] == [[2]]


def test_misspellings_are_guessed_from_six_letters_and_twice_from_twelve():
    table = SymbolTable([Declared(1, "r", "Render"), Declared(2, "r", "ParseHeaders")])
    [[render]] = table.named("what does `Rendor` draw?")  # six letters, one edit
    assert (render.chunk_id, render.edits) == (1, 1)
    [[parse]] = table.named("what does `PorseHeadurs` return?")  # twelve letters, two edits
    assert (parse.chunk_id, parse.edits) == (2, 2)


def test_described_needs_every_word_of_the_symbol():
    table = SymbolTable([Declared(1, "r", "ParseHeaderLines")])
    assert table.described("how are header lines parsed?") == [1]
    assert table.described("how are header lines read?") == []
    # Word forms meet: "updating", "updated" and "updates" are "update".
    forms = SymbolTable([Declared(2, "r", "UpdateDetection")])
    for question in ("updating detections", "updated detection", "updates detection"):
        assert forms.described(question) == [2], question


def test_a_symbol_is_named_by_its_whole_name_or_a_qualified_last_part_in_any_style():
    keys = named_keys("is `cobra.ExactValidArgs` gone, and what of update_with_detection?")
    assert is_named("ExactValidArgs", keys)
    assert is_named("FaceTrack.update_with_detection", keys)
    assert is_named("Tracker.updateWithDetection", keys)
    assert not is_named("ExactArgs", keys)
    assert not is_named("", keys)
    assert is_named("Client.Close", named_keys("does `conn.Close()` block?"))


def test_prose_names_no_symbol():
    keys = named_keys("how do I check for exact valid args with a Timeout?")
    assert keys == frozenset()
    assert not is_named("ExactValidArgs", keys)
    assert not is_named("Timeout", keys)


def test_a_symbol_is_named_with_its_package_by_its_directory_or_at_the_root_its_repository():
    qualified = qualified_names("does `stdlib.Merge` keep the last key? and hcl.Diagnostics?")
    assert qualified == {("stdlib", "merge"), ("hcl", "diagnostics")}
    merge = ("Merge", "cty/function/stdlib/collection.go", "go-cty")
    assert in_named_package(*merge, qualified)
    assert not in_named_package("Merge", "cty/function/other/merge.go", "go-cty", qualified)
    # A file at the root belongs to the repository's package, named by a word of its name.
    assert in_named_package("Diagnostics.HasErrors", "diagnostic.go", "hcl", qualified)
    assert not in_named_package("Diagnostics", "sub/diagnostic.go", "hcl", qualified)
    gitlab = qualified_names("gitlab.NewClient(token)")
    assert in_named_package("NewClient", "gitlab.go", "go-gitlab", gitlab)
    # Named without its package, or not as code, it is not.
    assert not in_named_package(*merge, qualified_names("does `Merge` keep the last key?"))
    assert not in_named_package(*merge, qualified_names("does stdlib merge keep the last key?"))


def test_a_longer_qualified_name_gives_its_package_and_type_or_its_module_and_member():
    assert qualified_names("is `cty.Value.Type` cheap?") == {("cty", "value"), ("value", "type")}
    assert in_named_package(
        "Value.Type", "cty/value.go", "go-cty", qualified_names("cty.Value.Type")
    )
    module = ("Choice", "src/click/types.py", "click")
    assert in_named_package(*module, qualified_names("click.types.Choice"))
    assert in_named_package(*module, qualified_names("click.Choice"))
    assert not in_named_package(
        "Group", "src/click/__init__.py", "click", qualified_names("x.Group")
    )


def test_a_forge_source_at_its_root_is_the_package_of_its_last_path_part():
    assert in_named_package("Load", "config.go", "acme/go/config", qualified_names("config.Load"))
    assert not in_named_package("Load", "config.go", "acme/go/config", qualified_names("acme.Load"))
