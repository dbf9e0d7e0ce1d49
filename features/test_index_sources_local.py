import shutil

from pytest_bdd import given, parsers, scenarios, then, when

from features.conftest import World, build_changing, source_verdict
from tests.gitrepo import commit, git, make_repo

scenarios("index_sources_local.feature")

TOO_LONG = "x" * 300  # past NAME_MAX (255)


@then(parsers.parse('"{entry}" is listed as missing, under its name and path'))
def entry_missing(world: World, entry: str) -> None:
    path = world.root / entry
    source_verdict(world, f"{path.name} (missing at {path})", "unresolved", "missing")


@then(parsers.parse('"{entry}" is not listed as missing'))
def entry_not_missing(world: World, entry: str) -> None:
    path = world.root / entry
    listed = {row["source"] for row in world.json()}
    assert listed and f"{path.name} (missing at {path})" not in listed, listed


@then(parsers.parse('no passage comes from "{name}"'))
def no_passage_from(world: World, name: str) -> None:
    assert all(r["repo"] != name for r in world.json()["results"])


@then(parsers.parse('the status lists "{name}" as fresh'))
def status_fresh(world: World, name: str) -> None:
    rows = {row["source"]: row for row in world.json()["sources"]}
    assert rows[name]["stale"] is False
    assert rows[name]["documents"] == 1


@then(parsers.parse('the status lists "{name}" as "{verdict}" by clause "{clause}"'))
def status_verdict(world: World, name: str, verdict: str, clause: str) -> None:
    rows = {row["source"]: row for row in world.json()["sources"]}
    assert (rows[name]["verdict"], rows[name]["clause"]) == (verdict, clause)
    assert rows[name]["documents"] == 1  # still answered from


@then(parsers.parse('the status lists "{entry}" as missing, never indexed'))
def status_missing_never_indexed(world: World, entry: str) -> None:
    path = world.root / entry
    rows = {row["source"]: row for row in world.json()["sources"]}
    row = rows[f"{path.name} (missing at {path})"]
    assert (row["verdict"], row["clause"], row["indexed_at"]) == ("unresolved", "missing", None)
    assert row["detail"] == f"{path} does not exist: correct or remove the path in sources.local"


@given(parsers.parse('the repository "{name}" is deleted from the estate'))
def repository_deleted(world: World, name: str) -> None:
    shutil.rmtree(world.estate / name)


@when(parsers.parse('the index is built, and "{name}" is removed once the build has admitted it'))
def built_while_removed(world: World, name: str) -> None:
    build_changing(world, name, lambda: shutil.rmtree(world.estate / name))


@given("the estate directory is moved away")
def estate_moved(world: World) -> None:
    world.estate.rename(world.root / "elsewhere")


@given("the estate holds a link to a path whose name is too long to look up")
def estate_link_too_long(world: World) -> None:
    # Past NAME_MAX (255): looking the link up fails with an error other than "not found",
    # as a directory the user cannot read does (tests run as root, which reads anything).
    (world.estate / "link").symlink_to(world.root / TOO_LONG)


@given(
    parsers.parse(
        'the repository "{name}" in the estate becomes a link to a path whose name is too long '
        "to look up"
    )
)
def repository_becomes_link_too_long(world: World, name: str) -> None:
    (world.estate / name).rename(world.root / f"{name}-elsewhere")
    (world.estate / name).symlink_to(world.root / TOO_LONG)


@given("the configuration also lists a path whose name is too long to look up")
def configuration_lists_too_long(world: World) -> None:
    configuration_also_lists(world, TOO_LONG)


@given(
    parsers.parse(
        'a linked worktree "{name}" in the estate, on a branch of its own holding "{path}":'
    )
)
def linked_worktree(world: World, name: str, path: str, docstring: str) -> None:
    # Its main repository is outside the estate, and holds nothing of the worktree's branch.
    main = world.root / "main" / name
    make_repo(main, {"README.md": f"# {name}\n\nThe main branch.\n"})
    git(main, "worktree", "add", "-q", "-b", "feature", str(world.estate / name))
    commit(world.estate / name, {path: docstring + "\n"})


@given(parsers.parse('a submodule checkout "{name}" in the estate, copied out of its superproject'))
def submodule_copied_out(world: World, name: str) -> None:
    # Its .git file names ../.git/modules/NAME: the superproject's, not the estate's.
    make_repo(world.root / "origin" / name, {"README.md": f"# {name}\n"})
    superproject = world.root / "super"
    make_repo(superproject, {"README.md": "# Super\n"})
    source = str(world.root / "origin" / name)
    git(superproject, "-c", "protocol.file.allow=always", "submodule", "add", "-q", source, name)
    shutil.copytree(superproject / name, world.estate / name)


@given(parsers.parse('the main repository of "{name}" is moved away'))
def main_repository_moved(world: World, name: str) -> None:
    (world.root / "main" / name).rename(world.root / "main" / f"{name}-moved")


@given(parsers.parse('"{name}" gets a new commit holding "{path}":'))
def new_commit(world: World, name: str, path: str, docstring: str) -> None:
    commit(world.estate / name, {path: docstring + "\n"})


@then(parsers.parse('no duplicate of "{name}" is listed'))
def no_duplicate_listed(world: World, name: str) -> None:
    listed = {row["source"] for row in world.json()}
    assert name in listed and not any(s.startswith(f"{name} (duplicate") for s in listed), listed


@then(parsers.parse('a passage comes from "{name}"'))
def a_passage_from(world: World, name: str) -> None:
    assert any(r["repo"] == name for r in world.json()["results"])


@given(parsers.parse('the configuration also lists "{entry}"'))
def configuration_also_lists(world: World, entry: str) -> None:
    path = world.root / "phpbotscout.toml"
    listed = f'local = ["{world.estate}"'
    path.write_text(path.read_text().replace(listed, f'{listed}, "{entry}"', 1))


@given(parsers.parse('another git repository "{name}" in "{directory}"'))
def repository_elsewhere(world: World, name: str, directory: str) -> None:
    make_repo(world.root / directory / name, {"README.md": f"# {name}\n\nAnother {name}.\n"})


@then(
    parsers.parse(
        'the "{name}" in "{directory}" is a duplicate, saying the estate\'s is the one indexed'
    )
)
def duplicate_explained(world: World, name: str, directory: str) -> None:
    path = world.root / directory / name
    rows = {row["source"]: row for row in world.json()}
    row = rows[f"{name} (duplicate at {path})"]
    assert (row["verdict"], row["clause"]) == ("unresolved", "duplicate")
    assert row["detail"].startswith(f"{path} is another repository called {name!r}"), row
    assert f"the name goes to {world.estate / name}, which" in row["detail"], row


@given(parsers.parse('a file "{name}" beside the configuration'))
def file_beside_configuration(world: World, name: str) -> None:
    (world.root / name).write_text("# Notes\n")


@given(parsers.parse('a bare mirror "{name}" in the estate of a repository holding "{path}":'))
def bare_mirror(world: World, name: str, path: str, docstring: str) -> None:
    upstream = world.root / "upstream" / name.removesuffix(".git")
    make_repo(upstream, {path: docstring + "\n"})
    git(world.root, "clone", "-q", "--mirror", str(upstream), str(world.estate / name))


@given(parsers.parse('the git configuration of "{name}" is not one git can read'))
def git_configuration_damaged(world: World, name: str) -> None:
    (world.estate / name / "config").write_text("not a git configuration\n", encoding="utf-8")


@given(parsers.parse('the branch ref of "{name}" is replaced by a directory'))
def branch_ref_replaced_by_directory(world: World, name: str) -> None:
    ref = world.estate / name / ".git" / "refs" / "heads" / "main"
    ref.unlink()
    ref.mkdir()


@given(parsers.parse('an empty git repository "{name}" in the estate'))
def empty_repository(world: World, name: str) -> None:
    (world.estate / name).mkdir()
    git(world.estate / name, "init", "-q")


@given(parsers.parse('the configuration no longer excludes "{name}"'))
def no_longer_excludes(world: World, name: str) -> None:
    path = world.root / "phpbotscout.toml"
    text = path.read_text()
    assert f'"{name}"' in text, text
    path.write_text(text.replace(f'"{name}", ', "").replace(f'"{name}"', ""))


@given(parsers.parse('the configuration sets the refresh interval of "{name}" to "{interval}"'))
def refresh_interval_of(world: World, name: str, interval: str) -> None:
    path = world.root / "phpbotscout.toml"
    path.write_text(path.read_text() + f'\n[sources.refresh_intervals]\n"{name}" = "{interval}"\n')
