"""Which command a button press belongs to, and what it asks for."""

import logging
from types import SimpleNamespace

from bot.discord_format.answers import FEEDBACK_PREFIX, parse_feedback_id
from bot.discord_format.listings import SOURCES_PREFIX, parse_sources_page_id
from extensions.messages import pressed


def press(custom_id: str) -> SimpleNamespace:
    return SimpleNamespace(id=42, custom_id=custom_id)


def test_a_press_is_read_by_the_command_whose_prefix_it_carries():
    assert pressed(press("src:page:2"), SOURCES_PREFIX, parse_sources_page_id) == 2
    assert pressed(press("src:page:2"), FEEDBACK_PREFIX, parse_feedback_id) is None


def test_an_unreadable_id_of_a_commands_own_is_logged_and_ignored(caplog):
    with caplog.at_level(logging.WARNING):
        assert pressed(press("src:page:x"), SOURCES_PREFIX, parse_sources_page_id) is None
    assert "unreadable button id 'src:page:x'" in caplog.text
