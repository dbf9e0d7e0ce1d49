from bot.corpus.urls import blob_url, local_url, page_url

SITE = "https://docs.example.org/proj/"


def test_index_pages_are_their_directory():
    assert page_url(SITE, "index.md") == SITE
    assert page_url(SITE, "reference/index.md") == SITE + "reference/"


def test_other_pages_become_a_directory_named_after_the_file():
    assert page_url(SITE, "how-to/01-author.md", "2-construction") == (
        SITE + "how-to/01-author/#2-construction"
    )


def test_blob_links_are_pinned_to_the_commit_with_a_line_range():
    url = blob_url("https://gitlab.example/g/p", "abc123", "pkg/a b.go", 10, 20)
    assert url == "https://gitlab.example/g/p/-/blob/abc123/pkg/a%20b.go#L10-20"
    assert blob_url("https://gitlab.example/g/p", "abc", "x.go", 3, 3).endswith("#L3")


def test_local_citations_name_repository_path_and_lines():
    assert local_url("cobra", "user_guide.md", 4, 9) == "cobra/user_guide.md#L4-L9"
