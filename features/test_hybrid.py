import asyncio
import dataclasses
import importlib.util
from dataclasses import dataclass, field

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from bot import config as config_module
from bot.engine import Engine
from bot.index.embedder import MODEL_PACKAGE
from bot.index.retriever import FtsRetriever, Result
from features.conftest import World
from tests.fakes.embedding import ConceptEmbedder, modules_without_metadata
from tests.gitrepo import commit

scenarios("hybrid.feature")


@dataclass
class Hybrid:
    model: ConceptEmbedder = field(default_factory=ConceptEmbedder)
    results: list[Result] = field(default_factory=list)


@pytest.fixture
def hybrid() -> Hybrid:
    return Hybrid()


def _config(world: World) -> config_module.Config:
    raw = {
        "sources": {"local": [str(world.estate)]},
        "index": {"path": str(world.root / "index.sqlite")},
        "retrieval": {"mode": "hybrid"},
    }
    return config_module.from_mapping(raw, env={}, base=world.root)


async def _refresh(world: World, model: ConceptEmbedder) -> None:
    async with await Engine.open(_config(world), embedder=model) as engine:
        report = await engine.refresh()
        assert report.ok


@given("the index is built in hybrid mode with a small concept model")
def built(world: World, hybrid: Hybrid):
    asyncio.run(_refresh(world, hybrid.model))


@given("the embed extra is not installed")
def embed_extra_missing():
    if all(
        importlib.util.find_spec(m) is not None for m in (MODEL_PACKAGE, "sentence_transformers")
    ):
        pytest.skip("the embed extra is installed here, so hybrid retrieval has its model")


@given("the model's modules can be imported but were never installed as a package")
def model_copied_onto_the_path(world: World, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PYTHONPATH", str(modules_without_metadata(world.root / "copied")))


@given("a configuration file choosing hybrid retrieval")
def hybrid_configuration(world: World):
    (world.root / "phpbotscout.toml").write_text(
        f'[sources]\nlocal = ["{world.estate}"]\n\n[index]\npath = "index.sqlite"\n\n'
        '[retrieval]\nmode = "hybrid"\n'
    )


@when(parsers.parse('I retrieve passages for "{question}"'))
def retrieve_hybrid(world: World, hybrid: Hybrid, question: str):
    async def run() -> list[Result]:
        async with await Engine.open(_config(world), embedder=hybrid.model) as engine:
            return list((await engine.retrieve(question)).results)

    hybrid.results = asyncio.run(run())


@when(parsers.parse('I retrieve passages for "{question}" with BM25 alone'))
def retrieve_bm25(world: World, hybrid: Hybrid, question: str):
    async def run() -> list[Result]:
        async with await Engine.open(_config(world), embedder=hybrid.model) as engine:
            return await FtsRetriever(engine.store).retrieve(question)

    hybrid.results = asyncio.run(run())


@when(parsers.parse('"{repo}" changes "{path}" from "{old}" to "{new}" and the index is refreshed'))
def change_and_refresh(world: World, hybrid: Hybrid, repo: str, path: str, old: str, new: str):
    target = world.estate / repo / path
    commit(world.estate / repo, {path: target.read_text().replace(old, new)})
    hybrid.model.embedded.clear()
    asyncio.run(_refresh(world, hybrid.model))


@when(
    parsers.parse(
        '"{repo}" changes "{path}" from "{old}" to "{new}" and the index is built in bm25 mode'
    )
)
def change_and_build_bm25(world: World, repo: str, path: str, old: str, new: str):
    target = world.estate / repo / path
    commit(world.estate / repo, {path: target.read_text().replace(old, new)})
    lexical = dataclasses.replace(_config(world), retrieval_mode="bm25")

    async def run() -> None:
        async with await Engine.open(lexical) as engine:
            assert (await engine.refresh()).ok

    asyncio.run(run())


@when("the repositories can no longer be found where they are listed and the index is refreshed")
def repositories_gone(world: World, hybrid: Hybrid):
    # Listed one by one, a repository that is not there proves nothing: it is unresolved.
    listed = sorted(world.estate.iterdir())
    world.estate.rename(world.root / "unmounted")
    raw = {
        "sources": {"local": [str(path) for path in listed]},
        "index": {"path": str(world.root / "index.sqlite")},
        "retrieval": {"mode": "hybrid"},
    }
    config = config_module.from_mapping(raw, env={}, base=world.root)

    async def run() -> set[str]:
        async with await Engine.open(config, embedder=hybrid.model) as engine:
            await engine.refresh()
            return {s.verdict for s in await engine.sources()}

    assert asyncio.run(run()) == {"unresolved"}


@then(parsers.parse('passage {rank:d} declares "{symbol}" in "{where}"'))
def passage_declares(hybrid: Hybrid, rank: int, symbol: str, where: str):
    passage = hybrid.results[rank - 1]
    repo, _, path = where.partition("/")
    assert (passage.repo, passage.path, passage.symbol) == (repo, path, symbol), passage


@then(parsers.parse('passage {rank:d} does not declare "{symbol}"'))
def passage_does_not_declare(hybrid: Hybrid, rank: int, symbol: str):
    assert hybrid.results[rank - 1].symbol != symbol


@then(parsers.parse('passage {rank:d} is the section "{heading}"'))
def passage_section(hybrid: Hybrid, rank: int, heading: str):
    assert hybrid.results[rank - 1].heading == heading, [r.heading for r in hybrid.results]


@then(parsers.parse('no passage is the section "{heading}"'))
def no_passage_section(hybrid: Hybrid, heading: str):
    assert all(r.heading != heading for r in hybrid.results)


@then(parsers.parse('the model embedded only text containing "{text}"'))
def embedded_only(hybrid: Hybrid, text: str):
    real = [t for t in hybrid.model.embedded if t != "how wide is a vector"]
    assert len(real) == 1 and text in real[0], hybrid.model.embedded


@then(parsers.parse("the totals count {count:d} chunk without vectors"))
def totals_without_vectors(world: World, count: int):
    assert world.json()["totals"]["chunks_without_vectors"] == count, world.stdout
