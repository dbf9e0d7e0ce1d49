"""A Rust ``cfg`` predicate is test-only when it cannot hold without ``test``, on any target."""

import pytest

from bot.corpus.code.rust_cfg import for_no_target, only_for_tests


@pytest.mark.parametrize(
    "predicate",
    [
        "test",
        "all(test)",
        'all(test, feature = "suggestions")',
        "all(any(unix, windows), test)",
        "all(\n    any(unix, windows),\n    test,\n)",
        "all(unix, any(all(test, windows), all(test, not(windows))))",
        "any(test, all(test, unix))",
        "not(not(test))",
        "not(any(not(test), unix))",
        "all(test, r#unix)",
        "any(false, test)",
        "false",
        "all(true, test)",
        "all(windows, any(unix, test))",  # a Windows test
    ],
)
def test_a_predicate_that_cannot_hold_without_test_is_test_only(predicate):
    assert only_for_tests(predicate)


# No target is unix and windows at once, or two systems, or Linux and not unix: an item so
# configured is compiled for no target, and no library holds it either.
@pytest.mark.parametrize(
    "predicate",
    [
        "all(unix, windows)",
        'all(target_family = "windows", target_family = "wasm")',
        'all(unix, not(target_family = "unix"))',
        'all(target_os = "linux", windows)',
        'all(target_os = "linux", target_os = "macos")',
        'all(target_os = "linux", not(unix))',
        'all(target_os = "windows", target_os = "fuchsia")',
    ],
)
def test_a_predicate_that_holds_on_no_target_is_test_only(predicate):
    assert only_for_tests(predicate)
    assert for_no_target(predicate)


@pytest.mark.parametrize(
    "predicate",
    ["test", "all(test, unix)", "all(any(unix, windows), test)", "all(windows, any(unix, test))"],
)
def test_a_predicate_tests_compile_is_for_some_target(predicate):
    """The log says such a module is compiled only for tests, not that no target compiles it."""
    assert not for_no_target(predicate)


@pytest.mark.parametrize(
    "predicate",
    [
        'all(unix, target_family = "wasm")',  # emscripten is both
        'all(unix, target_os = "fuchsia")',  # a system this does not know may be unix
        'all(target_os = "fuchsia", not(target_os = "redox"))',
        'all(windows, target_env = "gnu")',
        'all(unix, target_family = "itron")',
        "all(unix, not(windows))",
        'any(windows, target_os = "linux")',
        'all(not(unix), not(windows), not(target_family = "wasm"))',  # bare metal
    ],
)
def test_a_predicate_that_holds_on_some_target_is_not(predicate):
    assert not only_for_tests(predicate)


@pytest.mark.parametrize(
    "predicate",
    [
        "not(test)",
        'any(test, feature = "testing")',
        "any(all(any(unix, windows), test), doc)",
        "all(unix, not(all(test, windows)))",
        "unix",
        'feature = "test"',  # a feature named test is not the test option
        "all()",
        "any(test, true)",
        "tests",
        "my_cfg(test)",  # no predicate Rust knows: it may hold
        # Not read, and so kept: better a passage too many than one lost.
        "all(test",
        "all(test,, unix)",
        "not(test, unix)",
        "all(test) unix",
        'feature = r"x"',
        "",
        "(" * 100 + "test" + ")" * 100,
        "all(" * 100 + "test" + ")" * 100,
    ],
)
def test_a_predicate_that_may_hold_without_test_is_not(predicate):
    assert not only_for_tests(predicate)
