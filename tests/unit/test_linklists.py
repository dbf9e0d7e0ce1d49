from bot.corpus.linklists import LINK_LIST_WEIGHT, is_link_list, ranking_weight


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


def test_code_blocks_and_empty_sections_are_not():
    assert not is_link_list("## Example\n\n```md\n[a](b)\n```\n")
    assert not is_link_list("## Nothing\n")
