from importlib.util import find_spec

import pytest
from pytest_bdd import given, parsers, scenarios, then

from bot.index.embedder import MODEL_PACKAGE
from features.conftest import World

scenarios("bench.feature")


@given("the embedding model is not installed")
def no_embedding_model() -> None:
    if all(find_spec(name) is not None for name in (MODEL_PACKAGE, "sentence_transformers")):
        pytest.skip("the embed extra is installed here, so hybrid retrieval works")


@given("a questions file:")
def questions_file(world: World, docstring: str) -> None:
    (world.root / "questions.jsonl").write_text(docstring + "\n")


@given("a phpbotscout.toml that is not TOML")
def broken_configuration(world: World) -> None:
    (world.root / "phpbotscout.toml").write_text("[index\npath = \n")


@then(parsers.parse("the docs band has hit@8 of {value:f}"))
def docs_hit(world: World, value: float) -> None:
    assert world.json()["bands"]["docs"]["hit@8"] == value


@then(parsers.parse('question "{qid}" is a miss'))
def is_miss(world: World, qid: str) -> None:
    assert qid in {m["id"] for m in world.json()["misses"]}


@then(parsers.parse('question "{qid}" has a top score'))
def has_top_score(world: World, qid: str) -> None:
    scores = {u["id"]: u["top_score"] for u in world.json()["unanswerable"]}
    assert qid in scores
