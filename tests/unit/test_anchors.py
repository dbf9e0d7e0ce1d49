import pytest

from bot.corpus.anchors import slugify, unique


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("ReleaseSource.Private", "releasesourceprivate"),
        ("Hot reload & config: what's new?", "hot-reload-config-whats-new"),
        ("urfave_cli_no_docs build tag", "urfave_cli_no_docs-build-tag"),
        ("2. Construction must not need credentials", "2-construction-must-not-need-credentials"),
        ("Ünïcödé — em dash … ellipsis", "unicode-em-dash-ellipsis"),
        ("  spaced   out  ", "spaced-out"),
    ],
)
def test_slugify_matches_the_site(heading, anchor):
    assert slugify(heading) == anchor


def test_repeated_anchors_are_numbered_like_the_site():
    used: set[str] = set()
    assert [unique("a", used) for _ in range(3)] == ["a", "a_1", "a_2"]
    assert unique("", used) == "_1"
    assert unique("", used) == "_2"


def test_an_anchor_already_counted_continues_its_count():
    used = {"x_1"}
    assert unique("x_1", used) == "x_2"
