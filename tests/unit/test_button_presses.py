"""Which command a button press belongs to, and what it asks for."""

import logging

from bot.discord_format.answers import FEEDBACK_PREFIX, parse_feedback_id
from bot.discord_format.listings import SOURCES_PREFIX, parse_sources_page_id
from extensions.messages import pressed


def test_a_press_is_read_by_the_command_whose_prefix_it_carries():
    assert pressed("src:page:2", SOURCES_PREFIX, parse_sources_page_id, reference=42) == 2
    assert pressed("src:page:2", FEEDBACK_PREFIX, parse_feedback_id, reference=42) is None


def test_an_unreadable_id_of_a_commands_own_is_logged_and_ignored(caplog):
    with caplog.at_level(logging.WARNING):
        assert pressed("src:page:x", SOURCES_PREFIX, parse_sources_page_id, reference=42) is None
    assert "interaction 42: unreadable button id 'src:page:x'" in caplog.text
