"""A Rust file is hidden when the ``mod`` naming it, in another file, is hidden or test-only."""

import pytest

from bot.corpus.code.rust_modules import (
    HIDDEN,
    NO_TARGET,
    TEST_ONLY,
    ModuleDeclaration,
    hidden_files,
    module_declarations,
)


def test_declarations_say_which_modules_are_hidden_and_where_their_files_are():
    text = """
//! A crate.
pub mod public;
#[doc(hidden)]
#[path = "private/mod.rs"]
pub mod __private;
#[cfg(test)]
// Comments between the attributes and the module do not detach them.
mod tests;
#[cfg(all(any(unix, windows), test))]
mod platform_tests;
#[cfg(not(test))]
mod library;
mod inline {
    #[doc(hidden)]
    pub mod deeper;
}
#[cfg(test)]
mod inline_tests {
    mod helpers;
}
macro_rules! m { () => { mod in_macro; } }
"""
    assert module_declarations(text.encode()) == [
        ModuleDeclaration("public"),
        ModuleDeclaration("__private", path="private/mod.rs", hidden=HIDDEN),
        ModuleDeclaration("tests", hidden=TEST_ONLY),
        ModuleDeclaration("platform_tests", hidden=TEST_ONLY),
        ModuleDeclaration("library"),
        ModuleDeclaration("helpers", inline=("inline_tests",), hidden=TEST_ONLY),
        ModuleDeclaration("deeper", inline=("inline",), hidden=HIDDEN),
        ModuleDeclaration("in_macro"),
    ]


def test_declarations_a_crates_own_macro_template_writes_are_read_where_it_is_defined():
    text = """
macro_rules! platform {
    ($name:ident, $(#[$attr:meta])*) => {
        $(#[$attr])*
        /// The Unix side.
        pub mod unix;
        #[doc(hidden)]
        pub mod __private;
        mod $name;
        mod $name {
            mod caller_named;
        }
        pub mod nested {
            #[cfg(test)]
            mod tests;
        }
        cfg_rt! {
            pub mod runtime;
        }
    };
}
platform!(windows);
#[cfg(test)]
macro_rules! fixtures {
    () => { mod fixtures; };
}
#[macro_export]
macro_rules! exported {
    () => { mod exported; };
}
mod inline {
    macro_rules! inner {
        () => { #[path = "deep.rs"] pub mod deeper; };
    }
}
"""
    assert sorted(module_declarations(text.encode()), key=lambda d: d.name) == [
        ModuleDeclaration("__private", hidden=HIDDEN),
        ModuleDeclaration("deeper", inline=("inline",), path="deep.rs"),
        ModuleDeclaration("fixtures", hidden=TEST_ONLY),
        ModuleDeclaration("runtime"),
        ModuleDeclaration("tests", inline=("nested",), hidden=TEST_ONLY),
        ModuleDeclaration("unix"),
    ]


def test_declarations_a_macro_call_wraps_are_read_with_the_calls_attributes():
    text = """
cfg_rt! {
    /// The runtime.
    pub mod runtime;
}
#[cfg(test)]
wrap! {
    mod fixtures;
}
mod inline {
    outer! {
        inner! {
            #[doc(hidden)]
            pub mod deeper;
        }
    }
}
bitflags! {
    mod not_items: u32 { const A = 1; }
}
"""
    assert module_declarations(text.encode()) == [
        ModuleDeclaration("deeper", inline=("inline",), hidden=HIDDEN),
        ModuleDeclaration("fixtures", hidden=TEST_ONLY),
        ModuleDeclaration("runtime"),
    ]


def test_the_modules_a_cfg_if_chain_declares_are_test_only_where_only_tests_compile_them():
    text = """
cfg_if! {
    if #[cfg(unix)] {
        mod unix;
    } else if #[cfg(test)] {
        mod fixtures;
    } else if #[cfg(any(test, windows))] {
        mod windows;
    } else {
        #[doc(hidden)]
        mod other;
    }
}
"""
    assert sorted(module_declarations(text.encode()), key=lambda d: d.name) == [
        ModuleDeclaration("fixtures", hidden=TEST_ONLY),
        ModuleDeclaration("other", hidden=HIDDEN),
        ModuleDeclaration("unix"),
        ModuleDeclaration("windows"),
    ]


def test_a_cfg_if_chain_with_comments_between_its_branches_declares_its_modules():
    text = """
cfg_if! {
    // Unix first.
    if #[cfg(unix)] {
        mod unix;
    } /* otherwise */ else if #[cfg(test)] {
        mod fixtures;
    }
}
"""
    assert sorted(module_declarations(text.encode()), key=lambda d: d.name) == [
        ModuleDeclaration("fixtures", hidden=TEST_ONLY),
        ModuleDeclaration("unix"),
    ]


def test_a_module_no_target_compiles_is_logged_as_such_not_as_a_test_one():
    text = """
#[cfg(all(unix, windows))]
mod never;
#[cfg(all(windows, any(unix, test)))]
mod windows_tests;
cfg_if! {
    if #[cfg(unix)] {
        mod unix;
    } else if #[cfg(all(target_os = "linux", not(test)))] {
        mod unreachable;
    }
}
"""
    assert sorted(module_declarations(text.encode()), key=lambda d: d.name) == [
        ModuleDeclaration("never", hidden=NO_TARGET),
        ModuleDeclaration("unix"),
        ModuleDeclaration("unreachable", hidden=NO_TARGET),
        ModuleDeclaration("windows_tests", hidden=TEST_ONLY),
    ]
    assert module_declarations(b"#![cfg(any())]\nmod a;\n") == [
        ModuleDeclaration("a", hidden=NO_TARGET)
    ]
    files = {"src/lib.rs": module_declarations(text.encode()), "src/never.rs": []}
    assert hidden_files(files, files) == {
        "src/never.rs": "its module is compiled for no target (mod never in src/lib.rs)"
    }


def test_a_file_hidden_at_its_top_hides_every_module_it_declares():
    assert module_declarations(b"#![doc(hidden)]\npub mod a;\n") == [
        ModuleDeclaration("a", hidden=HIDDEN)
    ]
    assert module_declarations(b"#![cfg(test)]\nmod a;\n") == [
        ModuleDeclaration("a", hidden=TEST_ONLY)
    ]


def test_inline_modules_and_a_commented_out_mod_name_no_file():
    # The comment passes the quick search for `mod name;`: the parse tells it apart.
    assert module_declarations(b"pub fn f() {}\nmod inline {}\n// mod commented;\n") == []


@pytest.mark.parametrize(
    ("files", "hidden"),
    [
        pytest.param(
            {
                "src/lib.rs": '#[doc(hidden)]\n#[path = "private/mod.rs"]\npub mod __private;\n'
                "pub mod de;\n",
                "src/private/mod.rs": "pub mod de;\n",
                "src/private/de.rs": "pub fn helper() {}\n",
                "src/private/undeclared.rs": "pub fn orphan() {}\n",
                "src/de/mod.rs": "pub mod value;\n",
                "src/de/value.rs": "pub struct Value;\n",
            },
            {
                "src/private/mod.rs",
                "src/private/de.rs",
                "src/private/undeclared.rs",
            },
            id="serde_s_private_module_hides_its_whole_directory_through_its_path",
        ),
        pytest.param(
            {
                "src/lib.rs": "#[cfg(test)]\nmod tests;\npub mod builder;\n",
                "src/tests.rs": "pub fn sample() {}\n",
                "src/builder/mod.rs": "#[cfg(all(any(unix, windows), test))]\nmod tests;\n",
                "src/builder/tests/mod.rs": "mod cases;\n",
                "src/builder/tests/cases.rs": "pub fn case() {}\n",
            },
            {
                "src/tests.rs",
                "src/builder/tests/mod.rs",
                "src/builder/tests/cases.rs",
            },
            id="a_test_module_s_file_is_hidden_beside_a_crate_root_or_a_mod_rs",
        ),
        pytest.param(
            {
                "src/lib.rs": "pub mod parser;\n",
                "src/parser.rs": "#[doc(hidden)]\npub mod internals;\n#[cfg(test)]\nmod tests;\n",
                "src/parser/internals.rs": "pub mod table;\n",
                "src/parser/internals/table.rs": "pub const SIZE: usize = 3;\n",
                "src/parser/tests/mod.rs": "pub fn case() {}\n",
                # Beside parser.rs, not under its name: another module altogether.
                "src/internals.rs": "pub fn kept() {}\n",
            },
            {
                "src/parser/internals.rs",
                "src/parser/internals/table.rs",
                "src/parser/tests/mod.rs",
            },
            id="a_module_file_s_hidden_submodules_sit_under_its_name",
        ),
        pytest.param(
            {
                "src/lib.rs": "pub mod outer {\n    #[doc(hidden)]\n    pub mod hidden;\n}\n",
                "src/outer/hidden.rs": "pub fn helper() {}\n",
                "src/hidden.rs": "pub fn other() {}\n",
            },
            {"src/outer/hidden.rs"},
            id="a_hidden_module_inside_an_inline_module_sits_in_its_directory",
        ),
        pytest.param(
            {
                "src/lib.rs": '#[path = "sys"]\npub mod platform {\n'
                "    #[cfg(test)]\n    mod checks;\n}\npub mod imp;\n",
                "src/imp.rs": '#[path = "native"]\nmod os {\n'
                "    #[doc(hidden)]\n    pub mod raw;\n}\n",
                "src/sys/checks.rs": "pub fn check() {}\n",
                "src/native/raw.rs": "pub fn raw() {}\n",
                # Where they would sit were the inline modules' #[path] not read.
                "src/platform/checks.rs": "pub fn kept() {}\n",
                "src/imp/os/raw.rs": "pub fn kept() {}\n",
            },
            {"src/sys/checks.rs", "src/native/raw.rs"},
            id="an_inline_module_s_path_is_the_directory_of_its_modules",
        ),
        pytest.param(
            {
                "src/lib.rs": "pub mod imp;\n",
                "src/imp.rs": '#[cfg(test)]\n#[path = "../testing/support.rs"]\nmod support;\n',
                "testing/support.rs": "pub fn helper() {}\n",
                # A file #[path] loads under another name holds siblings: none is swept.
                "testing/other.rs": "pub fn other() {}\n",
            },
            {"testing/support.rs"},
            id="a_path_is_relative_to_the_declaring_file_s_directory",
        ),
        pytest.param(
            {
                "src/lib.rs": "pub mod a;\nmod b;\n#[cfg(not(test))]\nmod c;\n"
                '#[cfg(any(test, feature = "x"))]\nmod d;\n#[doc(inline)]\npub mod e;\n',
                **{f"src/{name}.rs": "pub fn f() {}\n" for name in "abcde"},
            },
            set(),
            id="modules_declared_plainly_are_read",
        ),
        pytest.param(
            {
                "src/bin/tool.rs": "#[cfg(test)]\nmod tests;\n",
                "src/bin/tests.rs": "pub fn case() {}\n",
            },
            {"src/bin/tests.rs"},
            id="a_binary_crate_root_declares_its_modules_beside_itself",
        ),
        pytest.param(
            {
                "src/lib.rs": "pub mod parser;\npub mod tests;\n",
                # Its tests are under a tests/ directory, which is not indexed.
                "src/parser.rs": "#[cfg(test)]\nmod tests;\n",
                "src/tests.rs": "pub fn public_helper() {}\n",
            },
            set(),
            id="a_module_file_s_missing_submodule_is_not_looked_for_beside_it",
        ),
        pytest.param(
            {
                "src/lib.rs": '#[doc(hidden)]\n#[path = "imp/mod.rs"]\nmod imp;\n'
                '#[path = "imp/unix.rs"]\npub mod unix;\n',
                "src/imp/mod.rs": "pub mod helpers;\n",
                "src/imp/helpers.rs": "pub fn helper() {}\n",
                "src/imp/unix.rs": "pub mod fd;\n",
                "src/imp/fd.rs": "pub struct Fd;\n",
            },
            {"src/imp/mod.rs", "src/imp/helpers.rs"},
            id="a_file_a_plain_mod_also_names_is_read_though_a_hidden_directory_holds_it",
        ),
        pytest.param(
            {
                "src/main.rs": "#[cfg(test)]\nmod cli;\n",
                "src/lib.rs": "pub mod cli;\n",
                "src/cli.rs": "pub struct Args;\n",
            },
            set(),
            id="a_file_the_library_declares_is_read_though_the_binary_tests_it",
        ),
        pytest.param(
            {
                "src/lib.rs": '#[doc(hidden)]\n#[path = "imp/mod.rs"]\nmod imp;\n'
                'cfg_unix! {\n    #[path = "imp/unix.rs"]\n    pub mod unix;\n}\n'
                "wrap! {\n    #[cfg(test)]\n    mod tests;\n}\n",
                "src/imp/mod.rs": "",
                "src/imp/unix.rs": "pub struct Fd;\n",
                "src/tests.rs": "pub fn case() {}\n",
            },
            {"src/imp/mod.rs", "src/tests.rs"},
            id="a_mod_a_macro_call_wraps_is_read_as_one_written_without_it",
        ),
        pytest.param(
            {
                "src/lib.rs": "cfg_net! {\n    pub mod net;\n    pub mod tests;\n}\n",
                # Its tests are under a tests/ directory, which is not indexed.
                "src/net.rs": "#[cfg(test)]\nmod tests;\n",
                "src/tests.rs": "pub fn public_helper() {}\n",
            },
            set(),
            id="a_module_a_macro_call_declares_is_no_crate_root",
        ),
    ],
)
def test_which_files_a_hidden_or_test_only_mod_leaves_out(files, hidden):
    declarations = {path: module_declarations(text.encode()) for path, text in files.items()}
    assert set(hidden_files(declarations, set(files))) == hidden


def test_the_reason_names_the_declaration():
    files = {"src/lib.rs": "#[doc(hidden)]\npub mod __private;\n", "src/__private.rs": ""}
    declarations = {path: module_declarations(text.encode()) for path, text in files.items()}
    assert hidden_files(declarations, set(files)) == {
        "src/__private.rs": "its module is hidden from the API docs (mod __private in src/lib.rs)"
    }


def test_a_path_written_as_a_raw_string_is_read():
    declarations = module_declarations(
        b'#[cfg(test)]\n#[path = r"testing.rs"]\nmod a;\n#[path = r#"sys/unix.rs"#]\npub mod b;\n'
    )
    assert [d.path for d in declarations] == ["testing.rs", "sys/unix.rs"]


def test_a_hidden_module_s_directory_stops_at_a_crate_of_its_own():
    files = {
        "lib.rs": "#[doc(hidden)]\npub mod macros;\n",
        "macros.rs": "pub use macros_impl::*;\n",
        "macros/private.rs": "pub fn helper() {}\n",
        # A workspace member under the hidden module's directory: a crate of its own.
        "macros/derive/src/lib.rs": "pub fn derive() {}\n",
    }
    declarations = {path: module_declarations(text.encode()) for path, text in files.items()}
    hidden = hidden_files(declarations, set(files), crates={"", "macros/derive"})
    assert set(hidden) == {"macros.rs", "macros/private.rs"}
