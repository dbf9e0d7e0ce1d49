from bot.corpus.linklists import (
    LINK_LIST_WEIGHT,
    POINTER_WEIGHT,
    is_link_list,
    is_pointer,
    ranking_weight,
)


def test_a_see_also_list_is_a_link_list():
    text = (
        "## See Also\n\n"
        "- [`ctx connection`](connection.md): client-side commands\n"
        "  (register, subscribe, sync)\n"
        "- [Hub security](../security/hub.md)\n"
    )
    assert is_link_list(text)
    assert ranking_weight(text) == LINK_LIST_WEIGHT


def test_a_next_up_card_is_a_link_list():
    assert is_link_list("## Next Up\n\n**[Syncing notes →](sync.md)**: keys and data.\n")


def test_an_index_entry_whose_heading_is_a_link_is_a_link_list():
    assert is_link_list("### [Using the Scratchpad](scratchpad.md)\n\nNotes for your agent.\n")


def test_prose_with_links_in_it_is_not():
    text = (
        "## Tips\n\n"
        "* **Back up the key**: if you lose it, you lose [everything](keys.md).\n"
        "* **One key per project**: each init makes a new key.\n"
        "* **Never commit the key**.\n"
    )
    assert not is_link_list(text)
    assert ranking_weight(text) == 1.0


def test_a_section_is_a_link_list_from_three_items_in_five_starting_with_a_link():
    def section(linked: int) -> str:
        items = [f"- [Page {i}](p{i}.md)" for i in range(linked)]
        items += [f"- Step {i} is done by hand." for i in range(5 - linked)]
        return "## Steps\n\n" + "\n".join(items) + "\n"

    assert is_link_list(section(3))
    assert not is_link_list(section(2))


def test_code_blocks_and_empty_sections_are_not():
    assert not is_link_list("## Example\n\n```md\n[a](b)\n```\n")
    assert not is_link_list("## Nothing\n")


def test_a_short_section_ending_with_a_link_to_another_page_is_a_pointer():
    text = (
        "## Providing Active Help\n\n"
        "Active Help messages are hints printed as the program is being used. "
        "Read more about it in [Active Help](active_help.md).\n"
    )
    assert is_pointer(text)
    assert ranking_weight(text) == POINTER_WEIGHT


def test_sections_that_explain_or_link_elsewhere_are_not_pointers():
    explained = "## Colours\n\n" + "Widgets come in blue and in red. " * 20 + "See [more](c.md)."
    assert not is_pointer(explained)  # long enough to be an answer of its own
    assert not is_pointer("## Keys\n\nSee [keys](keys.md). Then run `ctx init` on each machine.\n")
    assert not is_pointer("## Upstream\n\nRead the [manual](https://example.org/manual.md).\n")
    assert not is_pointer("## Nothing\n")
    assert ranking_weight("## Keys\n\nKeys live in `.context/`.\n") == 1.0


def test_badges_under_a_title_do_not_make_the_description_a_link_list():
    readme = (
        "# go-widgets\n\n"
        "[![Build](https://ci.example/badge.svg)](https://ci.example/widgets)\n"
        "[![Coverage](https://cov.example/badge.svg)](https://cov.example/widgets)\n\n"
        "A client for the Widgets API, for Go programs.\n"
    )
    assert not is_link_list(readme)
    assert is_link_list("## More\n\n![logo](logo.png)\n\n- [Setup](setup.md)\n- [Use](use.md)\n")
