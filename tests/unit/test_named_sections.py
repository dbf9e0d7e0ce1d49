"""Sections a question names by their heading: said in full, in order, two words or more."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.index.named_sections import names_section, said_words


def _names(heading: str, question: str) -> bool:
    return names_section(heading, said_words(question))


@pytest.mark.parametrize(
    ("heading", "question"),
    [
        ("For Expressions", "whats the syntax of a for expression that builds an object?"),
        ("Build tags", "Is there a build tag to leave out the man pages?"),
        ("Trigger Types", "what trigger types can I hook into"),
        ("`ctx hub`", "what's the backup strategy for the ctx hub data dir"),
        ("Resolving dependencies", "it hangs when resolving dependency versions"),
    ],
)
def test_a_heading_said_in_full_names_its_section(heading, question):
    assert _names(heading, question)


@pytest.mark.parametrize(
    ("heading", "question", "why"),
    [
        ("Collection Values", "the syntax of a for expression building an object", "not said"),
        ("Build tags", "which tags does the build take?", "not together"),
        ("Tags build", "is there a build tag?", "not in order"),
        ("Building the tags", "is there a build tag?", "a word between them"),
        ("Build tags", "how do I build the tags?", "a word between them in the question"),
        ("Flags", "how do I hide flags from the help?", "one word"),
        ("The client", "point the client at my own server", "an article and one word"),
        ("", "anything at all", "no words"),
    ],
)
def test_a_heading_said_in_part_apart_or_of_one_word_names_nothing(heading, question, why):
    assert not _names(heading, question), why


@pytest.mark.parametrize(
    ("heading", "question"),
    [
        ("Updating the index", "how do I update the index by hand?"),
        ("Matching patches", "why is a matched patch applied twice?"),
        ("Base classes", "which base class should a widget extend?"),
        ("Base class", "can I list the base classes of a widget?"),
        ("Resolving dependencies", "it hangs when resolving dependency versions"),
    ],
)
def test_regular_forms_of_a_word_meet(heading, question):
    assert _names(heading, question)


@pytest.mark.parametrize("heading", ["What is it?", "How to do it", "Whats that"])
def test_a_heading_of_function_words_alone_names_nothing(heading):
    assert not _names(heading, f"{heading} I wonder, and what is it? how to do it? whats that")


def test_a_character_written_in_two_ways_meets_itself():
    assert _names("Caf\u00e9 menus", "where are the cafe\u0301 menus kept?")
    assert _names("STRASSE NAMES", "how are stra\u00dfe names spelled?")


@given(st.text(max_size=40), st.text(max_size=200))
def test_never_raises_and_a_heading_is_named_only_by_words_the_question_has(heading, question):
    said = said_words(question)
    if names_section(heading, said):
        assert set(said_words(heading)) - {"a", "an", "the"} <= set(said)
