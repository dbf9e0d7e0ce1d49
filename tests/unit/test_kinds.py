import pytest

from bot.corpus.chunk import Kind
from bot.corpus.kinds import MAX_FILE_BYTES, classify, crate_roots
from bot.corpus.site import SiteLayout, parse_config

SITE = SiteLayout("zensical.toml", "docs", "https://docs.example.org/")
NO_CRATES: frozenset[str] = frozenset()


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("README.md", Kind.README),
        ("CHANGELOG.md", Kind.CHANGELOG),
        ("docs/guide/setup.md", Kind.DOC),
        ("user_guide.md", Kind.MARKDOWN),
        ("pkg/README.md", Kind.MARKDOWN),
        ("client.go", Kind.CODE),
        ("client_test.go", Kind.NONE),
        ("vendor/x/y.go", Kind.NONE),
        ("internal/testdata/a.md", Kind.NONE),
        (".github/ISSUE_TEMPLATE.md", Kind.NONE),
        ("tool.py", Kind.CODE),
        ("tests/test_tool.py", Kind.NONE),
        ("tool/tool_test.py", Kind.NONE),
        ("tool/conftest.py", Kind.NONE),
        ("src/lib.rs", Kind.CODE),
        ("Makefile", Kind.NONE),
        ("image.png", Kind.NONE),
    ],
)
def test_classification_by_path(path, kind):
    assert classify(path, 100, SITE, other_markdown=True, crates=NO_CRATES) is kind


def test_a_crate_s_build_script_is_not_code():
    crates = crate_roots(["Cargo.toml", "derive/Cargo.toml", "derive/src/lib.rs", "tool/build.rs"])
    assert crates == {"", "derive"}
    for path in ("build.rs", "derive/build.rs"):
        assert classify(path, 100, None, other_markdown=False, crates=crates) is Kind.NONE
    # Beside no Cargo.toml, a build.rs is a module like any other.
    for path in ("src/build.rs", "tool/build.rs"):
        assert classify(path, 100, None, other_markdown=False, crates=crates) is Kind.CODE


def test_markdown_outside_the_site_is_only_read_when_allowed():
    assert classify("user_guide.md", 10, SITE, other_markdown=False, crates=NO_CRATES) is Kind.NONE
    assert classify("docs/a.md", 10, None, other_markdown=False, crates=NO_CRATES) is Kind.NONE


def test_files_over_one_mebibyte_are_never_read():
    assert (
        classify("docs/big.md", MAX_FILE_BYTES + 1, SITE, other_markdown=True, crates=NO_CRATES)
        is Kind.NONE
    )
    assert (
        classify("docs/big.md", MAX_FILE_BYTES, SITE, other_markdown=True, crates=NO_CRATES)
        is Kind.DOC
    )


def test_zensical_config_under_project_table():
    layout = parse_config("zensical.toml", '[project]\nsite_name="x"\nsite_url="https://a.b/c"\n')
    assert layout == SiteLayout("zensical.toml", "docs", "https://a.b/c/")


def test_mkdocs_config_under_docs_with_python_tags():
    text = "site_url: https://x.org/\ndocs_dir: ebpf\nextra:\n  - x: !!python/name:a.b\n"
    layout = parse_config("docs/mkdocs.yml", text)
    assert layout.docs_dir == "docs/ebpf" and layout.site_url == "https://x.org/"
    assert layout.contains("docs/ebpf/a.md") and not layout.contains("docs/other.md")


def test_config_without_site_url_has_no_pages():
    layout = parse_config("mkdocs.yml", "site_name: x\n")
    assert layout.site_url is None and not layout.contains("docs/a.md")


def test_a_config_saved_with_a_byte_order_mark_is_read():
    layout = parse_config("zensical.toml", '\ufeff[project]\nsite_url="https://a.b/"\n')
    assert layout.site_url == "https://a.b/"


def test_malformed_config_is_a_value_error():
    with pytest.raises(ValueError, match="not valid TOML"):
        parse_config("zensical.toml", "[project\n")
