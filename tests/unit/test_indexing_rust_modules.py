"""Which Rust files a refresh leaves out because their parents hide their modules."""

from bot.indexing import ReleaseCode, plan_source
from bot.snapshot import GitSnapshot
from tests.gitrepo import commit, make_repo

# A crate whose hidden module `macros` has a directory, `macros/derive/`, that a Cargo.toml
# of its own (DERIVE_CRATE) would make a crate apart.
HIDDEN_MACROS = {
    "Cargo.toml": '[package]\nname = "tool"\n[lib]\npath = "lib.rs"\n',
    "lib.rs": "#[doc(hidden)]\npub mod macros;\n/// Runs.\npub fn run() {}\n",
    "macros.rs": "/// Expands.\npub fn expand() {}\n",
    "macros/derive/src/lib.rs": "/// Derives.\npub fn derive() {}\n",
}
DERIVE_CRATE = {"macros/derive/Cargo.toml": '[package]\nname = "tool-derive"\n'}


def test_a_workspace_member_under_a_hidden_module_s_directory_is_read(tmp_path):
    repo = tmp_path / "tool"
    make_repo(repo, HIDDEN_MACROS | DERIVE_CRATE)
    plan = plan_source("tool", GitSnapshot(repo), None, {})
    assert {d.path for d in plan.fresh} == {"lib.rs", "macros/derive/src/lib.rs"}
    assert [path for path, _ in plan.skipped] == ["macros.rs"]


def test_the_crates_of_the_release_decide_a_hidden_module_s_directory_not_the_branch_s(tmp_path):
    repo = tmp_path / "tool"
    make_repo(repo, HIDDEN_MACROS)
    released = GitSnapshot(repo)
    # After the release, the branch makes the directory a crate of its own; the code read is
    # the release's, where it is still the hidden module's.
    commit(repo, DERIVE_CRATE)
    plan = plan_source("tool", GitSnapshot(repo), ReleaseCode(released, "v1.0"), {})
    assert {d.path for d in plan.fresh} == {"lib.rs"}
    assert sorted(path for path, _ in plan.skipped) == ["macros.rs", "macros/derive/src/lib.rs"]


# A crate declaring its platform modules in a macro_rules! template of its own; `sys/` is a
# hidden module's directory, which the template's plain `mod` reaches into.
TEMPLATE_MODULES = {
    "Cargo.toml": '[package]\nname = "sockets"\n',
    "src/lib.rs": (
        '#[doc(hidden)]\n#[path = "sys/mod.rs"]\nmod sys;\n'
        "macro_rules! platform {\n"
        "    () => {\n"
        '        #[path = "sys/unix.rs"]\n'
        "        pub mod unix;\n"
        "        #[cfg(test)]\n"
        "        mod fixtures;\n"
        "    };\n"
        "}\n"
        "platform!();\n"
    ),
    "src/sys/mod.rs": "/// Starts.\npub fn init() {}\n",
    "src/sys/unix.rs": "/// A raw descriptor.\npub struct RawDescriptor;\n",
    "src/fixtures.rs": "/// Accepts all.\npub struct AcceptingFixture;\n",
}


def test_the_mods_of_a_crates_own_macro_template_are_followed_to_their_files(tmp_path):
    repo = tmp_path / "sockets"
    make_repo(repo, TEMPLATE_MODULES)
    plan = plan_source("sockets", GitSnapshot(repo), None, {})
    assert {d.path for d in plan.fresh} == {"src/lib.rs", "src/sys/unix.rs"}
    assert sorted(path for path, _ in plan.skipped) == ["src/fixtures.rs", "src/sys/mod.rs"]
