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
