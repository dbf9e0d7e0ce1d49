"""A Rust ``cfg`` predicate is test-only when it cannot hold without ``test``."""

import pytest

from bot.corpus.code.rust_cfg import only_for_tests


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
    ],
)
def test_a_predicate_that_cannot_hold_without_test_is_test_only(predicate):
    assert only_for_tests(predicate)


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
