from bot.index.lexicon import alternatives
from bot.index.query import build_query


def test_irregular_forms_the_stemmer_leaves_apart_are_searched_too():
    assert alternatives(["hide", "the", "command"]) == ["hid", "hidden"]
    assert alternatives(["written", "by", "hand"]) == ["write", "wrote"]


def test_a_phrasal_verb_brings_its_one_word_equivalents_and_never_a_phrase():
    assert alternatives(["turn", "on", "reflection"]) == ["enable", "activate"]
    assert alternatives(["switch", "off", "colours"]) == ["disable", "deactivate"]
    assert alternatives(["enable", "reflection"]) == ["activate"]


def test_plurals_find_the_group_of_their_singular():
    assert alternatives(["callbacks"]) == ["handler"]


def test_forms_the_question_already_uses_are_not_repeated():
    assert alternatives(["enable", "or", "activate"]) == []


def test_words_outside_every_group_bring_nothing():
    assert alternatives(["frobnicate", "the", "widget"]) == []
    assert alternatives([]) == []


def test_alternatives_come_after_the_words_and_before_the_phrases():
    assert build_query("turn on reflection") == (
        '"turn" OR "reflection" OR "enable" OR "activate" OR "turn on" OR "on reflection"'
    )
