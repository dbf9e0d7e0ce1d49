from pytest_bdd import given, parsers, scenarios, then

from features.conftest import World

scenarios("bench.feature")


@given("a questions file:")
def questions_file(world: World, docstring: str) -> None:
    (world.root / "questions.jsonl").write_text(docstring + "\n")


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
