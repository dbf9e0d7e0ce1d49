import pytest

from bot.corpus.code import Unchunkable, chunk_code
from bot.corpus.code.source import CODE_WEIGHT, UNEXPORTED_WEIGHT
from tests.unit.codechecks import assert_honest, lines_of, spans

LIB = b"""//! Widgets for everyone.
//!
//! Build them with [`Widget::new`].

use std::fmt;

/// How many widgets a page holds.
pub const PAGE_SIZE: usize = 50;
const RETRY_LIMIT: u32 = 3;
/// The shared registry.
pub static REGISTRY: &str = "main";
static HIDDEN: u8 = 1;

/// A widget.
#[derive(Debug, Clone)]
pub struct Widget<T> {
    /// How deep it goes.
    pub depth: T,
}

struct Private;

impl<T: Clone> Widget<T> {
    /// Make a widget.
    pub fn new(depth: T) -> Self {
        Self { depth }
    }

    fn secret(&self) {}

    pub(crate) fn crate_only(&self) {}
}

impl fmt::Display for Widget<u8> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "w")
    }
}

/// Things that frobnicate.
pub trait Frob {
    /// The output.
    type Output;

    /// Frobnicate once.
    fn frob(&self) -> Self::Output;

    /// Frobnicate twice.
    fn frob_twice(&self) -> Self::Output {
        self.frob()
    }
}

/// Colours.
pub enum Colour {
    /// Red.
    Red,
    Blue,
}

pub type Depth = u32;

pub mod inner {
    //! Inner things.

    /// Helper.
    pub fn help() -> u8 {
        1
    }
}

#[cfg(test)]
mod tests {
    pub fn not_indexed() {}
}

/// Make a widget quickly.
#[macro_export]
macro_rules! widget {
    () => {};
}

fn private_fn() {}
"""


def by_symbol(data: bytes, path: str = "widgets/src/lib.rs") -> dict[str, object]:
    chunks = chunk_code(path, data)
    assert_honest(data, chunks)
    return {c.symbol: c for c in chunks}


def test_kept_symbols():
    assert list(by_symbol(LIB)) == [
        "crate widgets",
        "PAGE_SIZE",
        "RETRY_LIMIT",
        "REGISTRY",
        "Widget",
        "Widget.new",
        "Frob",
        "Frob.Output",
        "Frob.frob",
        "Frob.frob_twice",
        "Colour",
        "Depth",
        "module inner",
        "help",
        "widget",
    ]


def test_crate_docs_are_the_first_chunk():
    chunk = by_symbol(LIB)["crate widgets"]
    assert chunk.text == lines_of(LIB, 1, 3)
    assert by_symbol(b"//! Parsing.\n", "src/parse.rs")["module parse"]


def test_a_struct_keeps_docs_attributes_and_fields():
    chunk = by_symbol(LIB)["Widget"]
    assert chunk.text.startswith("/// A widget.\n#[derive(Debug, Clone)]\npub struct Widget<T> {")
    assert "pub depth: T," in chunk.text
    assert chunk.text.endswith("}")


def test_impl_methods_are_type_dot_method_without_bodies():
    chunk = by_symbol(LIB)["Widget.new"]
    assert chunk.text == "    /// Make a widget.\n    pub fn new(depth: T) -> Self {"
    assert chunk.heading_path == ("Widget.new",)


def test_trait_items_are_chunks_of_their_own():
    symbols = by_symbol(LIB)
    assert symbols["Frob"].text == "/// Things that frobnicate.\npub trait Frob {"
    assert (
        symbols["Frob.frob"].text == "    /// Frobnicate once.\n    fn frob(&self) -> Self::Output;"
    )
    twice = symbols["Frob.frob_twice"]
    assert twice.text.endswith("fn frob_twice(&self) -> Self::Output {")
    assert twice.terms == "frob twice"


def test_constants_hold_their_values():
    symbols = by_symbol(LIB)
    assert (
        symbols["PAGE_SIZE"].text
        == "/// How many widgets a page holds.\npub const PAGE_SIZE: usize = 50;"
    )
    assert symbols["PAGE_SIZE"].terms == "page size"
    assert symbols["RETRY_LIMIT"].text == "const RETRY_LIMIT: u32 = 3;"


def test_a_constant_without_pub_ranks_at_half_weight_as_in_go_and_python():
    symbols = by_symbol(LIB)
    assert symbols["PAGE_SIZE"].weight == CODE_WEIGHT
    assert symbols["RETRY_LIMIT"].weight == CODE_WEIGHT * UNEXPORTED_WEIGHT


def test_inline_modules_have_their_docs_and_items():
    symbols = by_symbol(LIB)
    assert symbols["module inner"].text == "    //! Inner things."
    assert symbols["help"].heading_path == ("module inner", "help")


def test_an_inline_module_keeps_the_docs_written_above_it():
    source = b"""/*!
Searching text.
*/

/**
Match regular expressions on arbitrary bytes.

This module provides a nearly identical API to the one found in the top-level of this crate.
*/
#[cfg(feature = "std")]
pub mod bytes {
    /// A compiled regular expression for searching bytes.
    pub struct Regex;
}
"""
    symbols = by_symbol(source, "src/lib.rs")
    module = symbols["module bytes"]
    assert module.text.startswith("/**\nMatch regular expressions on arbitrary bytes.")
    assert module.text.endswith('#[cfg(feature = "std")]\npub mod bytes {')
    assert (module.start_line, module.end_line) == (5, 11)
    assert symbols["Regex"].heading_path == ("module bytes", "Regex")


def test_an_exported_macro_keeps_its_docs_and_first_line():
    chunk = by_symbol(LIB)["widget"]
    assert chunk.text == "/// Make a widget quickly.\n#[macro_export]\nmacro_rules! widget {"


def test_a_generated_file_is_skipped():
    with pytest.raises(Unchunkable, match="generated"):
        chunk_code("src/proto.rs", b"// This file is @generated by prost-build.\npub struct A;\n")


def test_a_declaration_that_does_not_parse_is_left_out_and_the_rest_kept():
    chunks = chunk_code("src/bad.rs", b"pub fn ok() {}\npub fn broken( {\n")
    assert spans(chunks) == [("ok", 1, 1)]


def test_an_error_inside_a_body_costs_no_declaration():
    # Rust 2015's try! macro: the grammar reads `try` as the 2018 keyword and fails there.
    source = (
        b"/// Reads things.\n"
        b"pub trait Reader {\n"
        b"    /// Reads twice.\n"
        b"    fn twice(&mut self) -> Result<(), E> {\n"
        b"        try!(self.once());\n"
        b"        self.once()\n"
        b"    }\n"
        b"    /// Reads once.\n"
        b"    fn once(&mut self) -> Result<(), E>;\n"
        b"}\n"
    )
    chunks = {c.symbol: c for c in chunk_code("src/read.rs", source)}
    assert list(chunks) == ["Reader", "Reader.twice", "Reader.once"]
    assert chunks["Reader.twice"].text == (
        "    /// Reads twice.\n    fn twice(&mut self) -> Result<(), E> {"
    )


def test_a_file_with_nothing_that_parses_is_skipped_with_the_line():
    with pytest.raises(Unchunkable, match="Rust syntax error near line 2"):
        chunk_code("src/bad.rs", b"// Broken.\npub fn broken( {\n")


def test_module_docs_run_across_blank_lines_and_spliced_files_up_to_the_first_item():
    source = (
        b"// Licence header.\n"
        b"\n"
        b"//! # Tutorial\n"
        b'#![doc = include_str!("../examples/quick.md")]\n'
        b"//! ## Options\n"
        b"\n"
        b"//! Options take values.\n"
        b"\n"
        b"/// Parses.\n"
        b"pub fn parse() {}\n"
    )
    chunks = chunk_code("src/_tutorial.rs", source)
    assert spans(chunks) == [
        ("module _tutorial", 3, 7),
        ("parse", 9, 10),
    ]
    assert chunks[0].text.endswith("//! Options take values.")


def test_inner_docs_inside_a_macro_call_are_not_the_modules_docs():
    source = (
        b"cfg_rt! {\n"
        b"    //! Not the module's docs.\n"
        b"\n"
        b"    /// Spawns a task.\n"
        b"    pub fn spawn() {}\n"
        b"}\n"
    )
    chunks = chunk_code("src/rt.rs", source)
    assert spans(chunks) == [("spawn", 4, 5)]


def test_an_error_in_a_private_body_of_a_file_with_nothing_public_is_no_syntax_error():
    assert chunk_code("src/main.rs", b"fn main() {\n    let x = try!(run());\n}\n") == []


def test_items_a_macro_call_wraps_in_braces_are_chunked_with_the_files_lines():
    source = (
        b"cfg_rt! {\n"
        b"    /// Spawns a task.\n"
        b"    pub fn spawn() {}\n"
        b"}\n"
        b"\n"
        b"pin_project! {\n"
        b"    /// Waits until a deadline.\n"
        b"    pub struct Sleep {\n"
        b"        #[pin]\n"
        b"        entry: u64,\n"
        b"    }\n"
        b"}\n"
    )
    chunks = {c.symbol: c for c in chunk_code("src/time.rs", source)}
    assert [(s, c.start_line, c.end_line) for s, c in chunks.items()] == [
        ("spawn", 2, 3),
        ("Sleep", 7, 11),
    ]
    assert chunks["spawn"].text == "    /// Spawns a task.\n    pub fn spawn() {}"


FOREIGN = b"""//! Bindings to the C library.

extern "C" {
    //! Not the module's docs.

    /// The length of a C string, its terminating zero not counted.
    #[link_name = "strlen"]
    pub fn c_strlen(s: *const c_char)
        -> usize;
    /// The last error a call of the C library set.
    pub static errno: c_int;
    fn internal_only();
    static private_state: c_int;
}

#[doc(hidden)]
extern "C" {
    pub fn hidden_helper();
}
"""


def test_the_pub_items_of_an_extern_block_are_chunked_as_rust_ones_are():
    chunks = chunk_code("src/lib.rs", FOREIGN)
    assert_honest(FOREIGN, chunks)
    assert spans(chunks) == [
        ("crate", 1, 1),
        ("c_strlen", 6, 9),
        ("errno", 10, 11),
    ]
    assert {c.symbol: c.text for c in chunks}["errno"] == (
        "    /// The last error a call of the C library set.\n    pub static errno: c_int;"
    )


# Rust 2024: an unsafe extern block's items say whether using them is safe. The grammar
# reads neither ``safe`` nor ``unsafe static``, so without help these items were lost.
EXTERN_2024 = b"""/// Before the block.
pub fn before() {}

/// Bindings to libm.
unsafe extern "C" {
    /// The absolute value.
    pub safe fn abs(x: i32) -> i32;
    /// Needs a valid C string.
    pub unsafe fn strlen(s: *const c_char) -> usize;
    /// The library's version.
    #[link_name = "m_version"]
    pub unsafe /* shared */ static VERSION: c_int;
    pub safe static mut STATE: u8;
    safe fn private_helper();
}

/// After the block.
pub struct After;
"""


def test_the_items_of_a_rust_2024_unsafe_extern_block_are_chunked():
    chunks = chunk_code("src/lib.rs", EXTERN_2024)
    assert_honest(EXTERN_2024, chunks)
    assert spans(chunks) == [
        ("before", 1, 2),
        ("abs", 6, 7),
        ("strlen", 8, 9),
        ("VERSION", 10, 12),
        ("STATE", 13, 13),
        ("After", 17, 18),
    ]
    texts = {c.symbol: c.text for c in chunks}
    assert texts["abs"] == "    /// The absolute value.\n    pub safe fn abs(x: i32) -> i32;"
    assert texts["VERSION"].endswith("    pub unsafe /* shared */ static VERSION: c_int;")


def test_a_file_of_rust_2024_bindings_alone_is_chunked_not_refused():
    source = b'unsafe extern "C" {\n    /// Y.\n    pub safe static Y: u8;\n}\n'
    chunks = chunk_code("src/ffi.rs", source)
    assert spans(chunks) == [("Y", 2, 3)]
    assert chunks[0].text == "    /// Y.\n    pub safe static Y: u8;"


def test_a_rust_2024_extern_block_inside_a_macro_call_is_chunked():
    source = b'cfg_ffi! {\n    unsafe extern "C" {\n        pub safe fn abs(x: i32) -> i32;\n'
    source += b"    }\n}\n"
    assert spans(chunk_code("src/ffi.rs", source)) == [("abs", 3, 3)]


# A foreign type (nightly's ``extern_types``): the grammar reads ``type Handle;`` in an
# extern block, but not with ``pub`` before it, so without help these items were lost.
FOREIGN_TYPES = b"""unsafe extern "C" {
    /// An open database, owned by the C library.
    pub type Database;
    /// A prepared statement.
    #[repr(C)]
    pub type Statement<'db>;
    pub
    type Split;
    pub(crate) type Internal;
    type Private;
    /// Opens a database.
    pub safe fn open() -> *mut Database;
}

pub trait Rows {
    /// One row.
    type Row;
}
"""


def test_the_pub_foreign_types_of_an_extern_block_are_chunked():
    chunks = chunk_code("src/lib.rs", FOREIGN_TYPES)
    assert_honest(FOREIGN_TYPES, chunks)
    assert spans(chunks) == [
        ("Database", 2, 3),
        ("Statement", 4, 6),
        ("Split", 7, 8),
        ("open", 11, 12),
        ("Rows", 15, 15),
        ("Rows.Row", 16, 17),
    ]
    texts = {c.symbol: c.text for c in chunks}
    assert texts["Database"] == (
        "    /// An open database, owned by the C library.\n    pub type Database;"
    )
    assert texts["Split"] == "    pub\n    type Split;"


def test_a_foreign_type_whose_pub_has_a_line_of_its_own_keeps_the_doc_above_it():
    source = b'extern "C" {\n    /// A split handle.\n    #[repr(C)]\n    pub\n    type Split;\n}\n'
    chunks = chunk_code("src/lib.rs", source)
    assert_honest(source, chunks)
    assert spans(chunks) == [("Split", 2, 5)]


def test_a_foreign_type_right_above_a_safe_fn_is_chunked_with_it():
    # The grammar makes one error of both, or breaks up the block; each is found in turn.
    source = b'/// Before.\npub fn before() {}\nunsafe extern "C" {\n    pub type Db;\n'
    source += b"    /// Opens.\n    pub safe fn open() -> *mut Db;\n    ///\n"
    source += b"    pub safe fn close(db: *mut Db);\n}\n/// After.\npub struct After;\n"
    chunks = chunk_code("src/lib.rs", source)
    assert_honest(source, chunks)
    assert spans(chunks) == [
        ("before", 1, 2),
        ("Db", 4, 4),
        ("open", 5, 6),
        ("close", 7, 8),
        ("After", 10, 11),
    ]


def test_a_pub_type_alias_after_a_broken_up_extern_block_keeps_its_pub():
    # The grammar may make one error of the block and what follows it: a ``pub type`` past
    # the block's closing brace is an alias of the module's own, not a foreign type.
    source = b'unsafe extern "C" {\n    pub type Db;\n    pub safe fn open() -> *mut Db;\n'
    source += b"    pub type Other;\n    pub safe static X: u8;\n}\n/// Alias.\n"
    source += b"pub type Alias = u32;\npub fn f() {}\n"
    chunks = chunk_code("src/lib.rs", source)
    assert_honest(source, chunks)
    assert spans(chunks) == [
        ("Db", 2, 2),
        ("open", 3, 3),
        ("Other", 4, 4),
        ("X", 5, 5),
        ("Alias", 7, 8),
        ("f", 9, 9),
    ]


def test_a_foreign_type_inside_a_macro_call_is_chunked_and_pub_elsewhere_is_still_an_error():
    source = b'cfg_ffi! {\n    extern "C" {\n        /// A handle.\n        pub type Handle;\n'
    source += b"    }\n}\n"
    assert spans(chunk_code("src/ffi.rs", source)) == [("Handle", 3, 4)]
    # Outside an extern block, ``pub type Name;`` is no Rust at all.
    source = b"/// Fine.\npub fn fine() {}\npub trait T {\n    pub type Row;\n}\n"
    assert spans(chunk_code("src/lib.rs", source)) == [("fine", 1, 2), ("T", 3, 3)]


def test_a_safe_qualifier_outside_an_extern_block_is_still_an_error():
    # ``safe`` qualifies only an extern block's items; elsewhere Rust has no such syntax.
    with pytest.raises(Unchunkable, match="syntax error near line 2"):
        chunk_code("src/lib.rs", b"/// F.\npub safe fn f() {}\n")
    source = b"pub trait Shape {\n    /// The area.\n    safe fn area(&self) -> f64;\n}\n"
    assert spans(chunk_code("src/lib.rs", source)) == [("Shape", 1, 1)]


TEMPLATES = b"""macro_rules! define_set {
    ($name:ident, $text:ty, $(#[$example:meta])*) => {
        pub mod $name {
/// Matches many patterns in one pass.
///
$(#[$example])*
///
/// Cheaper than matching each pattern alone.
#[derive(Clone)]
pub struct RegexSet(Vec<$text>);

impl RegexSet {
    /// Build a set from its patterns.
    pub fn new(patterns: &[$text]) -> Self {
        RegexSet(patterns.to_vec())
    }

    fn private_helper(&self) {}
}

/// Named by the caller, so not searchable by a name of its own.
pub struct $name;

impl $text {
    pub fn for_the_callers_type() {}
}
        }
    };
}

macro_rules! declare_error_trait {
    (Error: Sized $(+ $($bound:ident)::+)*) => {
        /// Errors a format can build.
        pub trait Error: Sized $(+ $($bound)::+)* {
            /// An error with a custom message.
            fn custom(msg: &str) -> Self;
        }
    };
}

define_set! { unicode, String, }
define_set! { bytes, u8, }
declare_error_trait!(Error: Sized + std::error::Error);
"""


def test_the_items_a_crates_own_macro_template_declares_are_chunked_with_the_files_lines():
    chunks = chunk_code("src/re_set.rs", TEMPLATES)
    assert_honest(TEMPLATES, chunks)
    # The repetition on a line of its own is read as the attribute it repeats, so the doc
    # comment runs on past it; the one inside the trait's signature is read as no copy.
    assert spans(chunks) == [
        ("RegexSet", 4, 10),
        ("RegexSet.new", 13, 14),
        ("Error", 33, 34),
        ("Error.custom", 35, 36),
    ]
    by_symbol = {c.symbol: c for c in chunks}
    assert by_symbol["RegexSet"].text == lines_of(TEMPLATES, 4, 10)
    assert "$(#[$example])*" in by_symbol["RegexSet"].text  # stored as written, never blanked
    assert by_symbol["RegexSet"].heading_path == ("RegexSet",)


SPLICED = b"""macro_rules! int_impl {
    ($t:ty) => {
        /// The smallest value.
        pub const MIN: Self = 0;
        /// Counts the ones.
        pub const fn count_ones(self) -> u32 { 0 }
    };
}
impl Counter { int_impl!(u32); }

macro_rules! shared {
    () => {
        /// Written into two types.
        pub fn len(&self) -> usize { 0 }
    };
}
impl Left { shared!(); }
impl Right { crate::shared!(); }

macro_rules! called_elsewhere {
    () => {
        /// A member of a type this file does not show.
        pub fn width(&self) -> u32 { 0 }
        /// Builds one.
        pub fn new() -> Self { todo!() }
        /// A free function all the same.
        pub fn free() {}
    };
}
"""


def test_a_templates_members_are_the_type_whose_impl_calls_it_or_left_out():
    chunks = chunk_code("src/num.rs", SPLICED)
    assert_honest(SPLICED, chunks)
    # One impl calls int_impl!, so what it writes is Counter's; shared! writes into two
    # types, and no one owner can be named; called_elsewhere!'s members have no owner here.
    assert spans(chunks) == [("Counter.MIN", 3, 4), ("Counter.count_ones", 5, 6), ("free", 26, 27)]


@pytest.mark.parametrize(
    "signature",
    [
        "pub fn widen<T>(value: T) -> u64\n        where\n            Self: Into<T>,\n        {",
        "pub fn widen<T: From<Self>>(value: T) -> u64 {",
        "pub fn widen<T>(value: T) -> u64 where T: PartialEq<Self> {",
    ],
)
def test_a_template_function_naming_self_only_in_its_generics_is_a_member(signature):
    template = f"""macro_rules! widen_impl {{
    () => {{
        /// Widens a value.
        {signature}
            0
        }}
    }};
}}
"""
    uncalled = template.encode()
    # No impl calls it here: it is a member of some type elsewhere, not a free function.
    assert chunk_code("src/num.rs", uncalled) == []
    called = (template + "impl Counter { widen_impl!(); }\n").encode()
    chunks = chunk_code("src/num.rs", called)
    assert_honest(called, chunks)
    assert [c.symbol for c in chunks] == ["Counter.widen"]


def test_a_templates_owner_is_found_in_its_own_module_and_never_in_an_unindexed_impl():
    source = b"""mod a {
    macro_rules! m { () => { pub fn helper() {} }; }
    impl A { m!(); }
}
mod b {
    macro_rules! m { () => { pub fn helper() {} }; }
    m!();
}

macro_rules! bits_impl { ($n:expr) => { pub const BITS: u32 = $n; }; }
impl Bits for u8 { bits_impl!(8); }

macro_rules! hidden_new { () => { pub fn new() {} }; }
#[doc(hidden)]
impl Foo { hidden_new!(); }

pub trait Shape { in_trait!(); }
macro_rules! in_trait { () => { pub const LIMIT: u32 = 3; }; }
"""
    # Two modules' macros of one name are two macros; what a macro writes into a trait's
    # implementation, a hidden impl or a trait's body is as unindexed as the rest of it.
    assert [c.symbol for c in chunk_code("src/lib.rs", source)] == ["A.helper", "helper", "Shape"]


@pytest.mark.parametrize("trait", ["trait", "pub(crate) trait", "#[doc(hidden)]\npub trait"])
def test_what_a_macro_writes_into_an_unindexed_traits_body_is_left_out(trait):
    source = f"""macro_rules! limits {{
    () => {{
        /// The trait's constant, not the module's.
        const LIMIT: u32 = 3;
    }};
}}

/// Beside it.
pub fn beside() {{}}

{trait} Limits {{
    limits!();
}}
""".encode()
    assert spans(chunk_code("src/lib.rs", source)) == [("beside", 8, 9)]


def test_a_templates_impl_is_for_the_type_its_path_ends_in():
    source = b"""macro_rules! impl_parse {
    ($t:ty) => {
        impl $crate::Version {
            /// Parses a version.
            pub fn parse_str(text: &str) -> Self { todo!() }
        }
        impl<T> $crate::de::Wrapper<T> {
            /// Unwraps it.
            pub fn into_inner(self) -> T { todo!() }
        }
        impl<'a> &'a $t {
            pub fn by_ref() {}
        }
        impl $t {
            pub fn by_value() {}
        }
    };
}
"""
    chunks = chunk_code("src/lib.rs", source)
    assert_honest(source, chunks)
    # $crate is the defining crate's own path; the caller's type has no name to search by.
    assert spans(chunks) == [("Version.parse_str", 4, 5), ("Wrapper.into_inner", 8, 9)]


def test_a_test_only_module_a_template_names_by_its_caller_is_not_read():
    source = b"""macro_rules! with_tests {
    ($name:ident) => {
        #[cfg(test)]
        mod $name {
            pub fn fixture() {}
        }
        pub mod $name {
            pub fn shipped() {}
        }
    };
}
"""
    assert [c.symbol for c in chunk_code("src/lib.rs", source)] == ["shipped"]


def test_an_exported_macros_template_is_its_callers_code_and_not_read():
    source = b"""/// Declares a widget type.
#[macro_export]
macro_rules! widget {
    () => {
        /// A widget in the caller's crate.
        pub struct Widget;
    };
}
"""
    assert spans(chunk_code("src/lib.rs", source)) == [("widget", 1, 3)]


def test_a_template_that_does_not_read_as_items_costs_only_the_items_it_touches():
    source = b"""macro_rules! mixed {
    ($x:expr) => {
        /// Kept: nothing unreadable touches it.
        pub fn kept() {}

        $x + + ;

        /// Also kept.
        pub const LIMIT: u32 = 3;
    };
    ($($x:expr),+) => { $($x)+* };
}
"""
    chunks = chunk_code("src/mixed.rs", source)
    assert_honest(source, chunks)
    assert [c.symbol for c in chunks] == ["kept", "LIMIT"]


def test_a_test_only_macro_calls_items_are_not_chunked():
    source = b"""#[cfg(test)]
wrap! {
    pub fn fixture() {}
}
#[cfg(not(test))]
wrap! {
    pub fn shipped() {}
}
"""
    assert [c.symbol for c in chunk_code("src/lib.rs", source)] == ["shipped"]


@pytest.mark.parametrize("attribute", ["#[doc(hidden)]", "#[cfg(all(unix, windows))]"])
def test_a_hidden_or_never_compiled_macro_calls_items_are_not_chunked(attribute):
    source = (
        f"{attribute}\nwrap! {{\n    pub fn helper() {{}}\n}}\npub fn shipped() {{}}\n".encode()
    )
    assert [c.symbol for c in chunk_code("src/lib.rs", source)] == ["shipped"]


CFG_IF = b"""cfg_if::cfg_if! {
    if #[cfg(unix)] {
        /// Opens a file the Unix way.
        pub fn open() {}
    } else if #[cfg(test)] {
        pub fn fixture() {}
    } else {
        /// Opens a file some other way.
        pub fn open() {}
    }
}

cfg_if! {
    if #[cfg(not(test))] {
        pub fn shipped() {}
    } else {
        pub fn only_in_tests() {}
    }
}

cfg_if! {
    if #[cfg(unix)] { pub fn unread() {} } else { pub fn unread() {} } trailing
}
"""


def test_the_branches_of_a_cfg_if_chain_are_chunked_but_those_only_tests_compile():
    chunks = chunk_code("src/fs.rs", CFG_IF)
    assert_honest(CFG_IF, chunks)
    # The second chain's else branch holds only when not(not(test)) does; the third chain
    # is not cfg_if's syntax, so none of it is read.
    assert spans(chunks) == [("open", 3, 4), ("open", 8, 9), ("shipped", 15, 15)]


def test_comments_between_the_branches_of_a_cfg_if_chain_do_not_stop_it_being_read():
    source = b"""cfg_if! {
    // The Unix one.
    if #[cfg(unix)] {
        pub fn on_unix() {}
    } /* else */ else if #[cfg(windows)] {
        pub fn on_windows() {}
    }
    // Any other system.
    else {
        pub fn elsewhere() {}
    }
}
"""
    for text in (source, source.replace(b"\n", b"\r\n")):
        chunks = chunk_code("src/sys.rs", text)
        assert_honest(text, chunks)
        assert spans(chunks) == [("on_unix", 4, 4), ("on_windows", 6, 6), ("elsewhere", 10, 10)]


def test_a_macro_body_that_is_not_items_is_left_alone():
    source = b"bitflags! {\n    pub struct Flags: u32 {\n        const A = 1;\n    }\n}\n"
    assert chunk_code("src/flags.rs", source) == []
    assert chunk_code("src/calls.rs", b"register!(pub fn f() {});\nempty! {}\n") == []


# rustdoc leaves out what #[doc(hidden)] marks, and all a hidden module, trait or impl holds;
# so does the index. Other doc attributes, and doc(hidden) under a condition, hide nothing.
def test_what_doc_hidden_hides_from_rustdoc_is_not_indexed():
    source = b"""/// Shown.
pub fn shown() {}

/// Hidden helper for the derive macro.
#[doc(hidden)]
pub fn helper() {}

#[doc(hidden, alias = "x")]
pub const LIMIT: u8 = 1;

#[doc(hidden)]
pub mod __private {
    //! Not public API.

    pub fn private_helper() {}
}

pub mod visible {
    #![doc(hidden)]
    //! Hidden from inside.

    pub fn also_hidden() {}
}

#[doc(hidden)]
impl Shown {
    pub fn hidden_method(&self) {}
}

/// A trait.
pub trait Frob {
    #[doc(hidden)]
    fn __internal(&self);

    /// Frobnicate.
    fn frob(&self);
}

#[doc(hidden)]
#[macro_export]
macro_rules! __helper {
    () => {};
}

#[doc = "A struct documented by attribute."]
pub struct Shown;

#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub fn on_std() {}
"""
    assert list(by_symbol(source, "src/lib.rs")) == [
        "shown",
        "Frob",
        "Frob.frob",
        "Shown",
        "on_std",
    ]


def test_an_attribute_belongs_to_its_item_across_blank_lines_and_comments():
    # The compiler reads an attribute as the next item's however far below it stands.
    source = b"""/// Shown.
pub fn shown() {}

#[doc(hidden)]

pub fn helper() {}

#[cfg(test)]
// Checks of the above.

mod tests {
    pub fn check() {}
}

#[macro_export]

/// Expands to nothing.
macro_rules! nothing {
    () => {};
}
"""
    assert list(by_symbol(source, "src/lib.rs")) == ["shown", "nothing"]


def test_a_file_hidden_from_its_top_has_nothing_indexed():
    source = b"#![doc(hidden)]\n//! Internals.\n\n/// Helper.\npub fn helper() {}\n"
    assert chunk_code("src/private.rs", source) == []


@pytest.mark.parametrize(
    ("top", "test_only"),
    [
        ("#![cfg(test)]", True),
        ("#![cfg(all(any(unix, windows), test))]", True),
        ("#![cfg(not(test))]", False),
        ('#![cfg(any(test, feature = "fuzz"))]', False),
    ],
)
def test_a_file_or_module_compiled_only_for_tests_from_its_top_has_nothing_indexed(
    top: str, test_only: bool
):
    file = f"{top}\n//! Test support.\n\n/// Helper.\npub fn helper() {{}}\n".encode()
    inline = f"pub mod support {{\n    {top}\n    pub fn helper() {{}}\n}}\n".encode()
    for source in (file, inline):
        symbols = [c.symbol for c in chunk_code("src/support.rs", source)]
        assert ("helper" not in symbols) is test_only, (source, symbols)
        assert symbols == [] or not test_only, (source, symbols)


def test_methods_of_an_impl_on_a_trait_object_are_the_traits():
    # What `impl dyn Error + Send` adds (downcasting) is API; rustdoc lists it on the trait.
    source = b"""pub trait Handler {}

impl dyn Handler + Send + 'static {
    /// Borrow the handler as its concrete type, if it is one.
    pub fn downcast_ref<T: Handler>(&self) -> Option<&T> {
        None
    }
}

impl dyn crate::visit::Visitor<u8> {
    pub fn reset(&mut self) {}
}
"""
    chunks = chunk_code("src/handler.rs", source)
    assert_honest(source, chunks)
    assert spans(chunks) == [
        ("Handler", 1, 1),
        ("Handler.downcast_ref", 4, 5),
        ("Visitor.reset", 11, 11),
    ]


@pytest.mark.parametrize(
    "cfg",
    [
        "test",
        'all(test, feature = "suggestions")',
        'all(\n    feature = "std",\n    test,\n)',
        "all(any(unix, windows), test)",
        'all(any(unix, feature = "std"), not(not(test)))',
    ],
)
def test_a_module_compiled_only_for_tests_is_skipped(cfg):
    source = f"""/// Parse.
pub fn parse() {{}}

#[cfg({cfg})]
mod tests {{
    const INPUT: &str = "a fixture";

    pub fn helper() {{}}
}}
""".encode()
    assert [c.symbol for c in chunk_code("src/lib.rs", source)] == ["parse"]


@pytest.mark.parametrize(
    "cfg",
    [
        "not(test)",
        'any(test, feature = "testing")',
        "any(all(any(unix, windows), test), doc)",
        "all(unix, not(test))",
    ],
)
def test_a_module_the_library_also_compiles_is_kept(cfg):
    source = f"#[cfg({cfg})]\nmod support {{\n    const LIMIT: u8 = 3;\n}}\n".encode()
    assert [c.symbol for c in chunk_code("src/lib.rs", source)] == ["LIMIT"]


TEST_ONLY_ITEMS = b"""/// Parse.
pub fn parse() {}

#[cfg(test)]
/// Builds a parser over a fixture.
pub fn parser_for_tests() {}

/// A sample input.
#[cfg(all(test, feature = "std"))]
#[derive(Debug)]
pub struct Fixture;

#[cfg(test)]
pub const SAMPLE: &str = "a b";

#[cfg(test)]
pub static SEEN: u8 = 0;

#[cfg(all(unix, windows))]
pub type Handle = u32;

#[cfg(test)]
/// Helpers for tests.
pub trait Probe {
    fn probe(&self);
}

#[cfg(test)]
impl Parser {
    /// Parses the sample.
    pub fn parse_sample(&self) {}
}

/// Asserts a parse.
#[cfg(test)]
#[macro_export]
macro_rules! assert_parses {
    () => {};
}

#[cfg(test)]
macro_rules! fixtures {
    () => {
        pub fn from_template() {}
    };
}

pub struct Parser;

impl Parser {
    /// Parses nothing.
    pub fn empty(&self) {}

    #[cfg(test)]
    pub fn reset_for_tests(&self) {}
}

pub trait Reader {
    /// Reads.
    fn read(&self);

    #[cfg(test)]
    fn read_fixture(&self);
}
"""


def test_items_compiled_only_for_tests_or_for_no_target_are_not_chunked():
    chunks = chunk_code("src/lib.rs", TEST_ONLY_ITEMS)
    assert_honest(TEST_ONLY_ITEMS, chunks)
    assert [c.symbol for c in chunks] == [
        "parse",
        "Parser",
        "Parser.empty",
        "Reader",
        "Reader.read",
    ]


def test_the_items_a_template_writes_only_for_tests_are_not_chunked():
    source = b"""macro_rules! declare {
    () => {
        /// Shipped.
        pub fn shipped() {}

        #[cfg(test)]
        pub fn fixture() {}

        #[cfg(test)]
        impl Widget {
            pub fn probe(&self) {}
        }
    };
}
"""
    assert [c.symbol for c in chunk_code("src/lib.rs", source)] == ["shipped"]


def test_what_a_test_only_call_writes_into_an_impl_is_no_member_of_it():
    source = b"""macro_rules! probes {
    () => {
        pub fn probe(&self) {}
    };
}

pub struct Widget;

impl Widget {
    #[cfg(test)]
    probes!();
}
"""
    assert [c.symbol for c in chunk_code("src/lib.rs", source)] == ["Widget"]


@pytest.mark.parametrize(
    "attribute", ["#[doc(hidden)]", "#[cfg(test)]", "#[cfg(all(unix, windows))]"]
)
def test_what_a_hidden_call_writes_into_an_impl_is_neither_a_member_nor_a_free_item(attribute):
    source = f"""macro_rules! helpers {{
    () => {{
        /// Takes no self, so only the call's impl could own it.
        pub fn helper() -> u32 {{ 0 }}
    }};
}}

pub struct Widget;

impl Widget {{
    {attribute}
    helpers!();
}}
""".encode()
    assert [c.symbol for c in chunk_code("src/lib.rs", source)] == ["Widget"]


@pytest.mark.parametrize(
    "attribute",
    ["#[cfg(not(test))]", "#[cfg_attr(test, derive(Debug))]", '#[cfg(any(test, feature = "x"))]'],
)
def test_an_item_the_library_also_compiles_is_kept(attribute):
    source = f"{attribute}\n/// A fixture.\npub fn fixture() {{}}\n".encode()
    assert spans(chunk_code("src/lib.rs", source)) == [("fixture", 1, 3)]
