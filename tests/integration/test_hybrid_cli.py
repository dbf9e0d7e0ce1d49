"""Hybrid mode as the command line meets it: the model's install, and what is left to embed."""

import asyncio
import importlib.metadata
import json
from pathlib import Path

import pytest

from bot import config as config_module
from bot.cli import main
from bot.engine import Engine
from bot.errors import ConfigError, UsageError
from bot.index.embedder import INSTALL_HINT, MODEL_DISTRIBUTION, MODEL_PACKAGE, packaged_embedder
from tests.fakes.embedding import ConceptEmbedder, modules_without_metadata
from tests.gitrepo import make_repo

PAGE = "# Widgets\n\nAbout widgets.\n\n## Tuning\n\nSet the depth to seven.\n"


@pytest.fixture
def configured(home: Path, tmp_path: Path) -> Path:
    make_repo(tmp_path / "estate" / "widgets", {"docs/guide.md": PAGE, "README.md": "# W\n\nHi.\n"})
    _choose(tmp_path, "bm25")
    return tmp_path


def _choose(root: Path, mode: str) -> None:
    (root / "phpbotscout.toml").write_text(
        f'[sources]\nlocal = ["{root / "estate"}"]\n[index]\npath = "index.sqlite"\n'
        f'[retrieval]\nmode = "{mode}"\n'
    )


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _totals(capsys: pytest.CaptureFixture[str]) -> dict[str, int | None]:
    code, out, err = run(capsys, "index", "status", "--json")
    assert code == 0, err
    totals: dict[str, int | None] = json.loads(out)["totals"]
    return totals


async def _build_with(config: config_module.Config, model: ConceptEmbedder) -> None:
    async with await Engine.open(config, embedder=model) as engine:
        assert (await engine.refresh()).ok


def test_status_counts_the_passages_hybrid_mode_has_not_embedded(configured, capsys):
    assert run(capsys, "index", "build")[0] == 0
    assert _totals(capsys)["chunks_without_vectors"] is None  # bm25 uses no vectors

    _choose(configured, "hybrid")
    totals = _totals(capsys)
    assert totals["chunks"] == totals["chunks_without_vectors"] == 3
    _, out, _ = run(capsys, "index", "status")
    said = " ".join(out.split())
    assert "3 of 3 passages have no vector yet" in said
    assert "Run 'python -m bot.cli index build' to embed them." in said

    asyncio.run(_build_with(config_module.load(None, {}, configured), ConceptEmbedder()))
    assert _totals(capsys)["chunks_without_vectors"] == 0
    _, out, _ = run(capsys, "index", "status")
    assert "no vector" not in out


def test_status_without_an_index_in_hybrid_mode_counts_nothing_missing(configured, capsys):
    _choose(configured, "hybrid")
    assert _totals(capsys)["chunks_without_vectors"] == 0


@pytest.mark.parametrize(
    ("absent", "named"),
    [
        (
            {MODEL_PACKAGE, "sentence_transformers"},
            f"the Python modules {MODEL_PACKAGE} and sentence_transformers of the embed extra",
        ),
        ({"sentence_transformers"}, "the Python module sentence_transformers of the embed extra"),
    ],
)
def test_missing_modules_are_named_and_the_extra_is_what_to_install(absent, named):
    with pytest.raises(ConfigError) as caught:
        packaged_embedder(find_spec=lambda name: None if name in absent else name)
    assert f"{named} cannot be found. Install the extra with {INSTALL_HINT}" in str(caught.value)


def _installed_as_a_package() -> bool:
    try:
        importlib.metadata.version(MODEL_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


@pytest.fixture
def copied_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The model's modules importable from a folder on the path, with no package metadata."""
    if _installed_as_a_package():
        pytest.skip("the embed extra is installed here, with its package metadata")
    monkeypatch.syspath_prepend(str(modules_without_metadata(tmp_path / "copied")))


@pytest.mark.usefixtures("copied_model")
def test_a_model_without_package_metadata_is_refused_with_what_to_do():
    with pytest.raises(ConfigError) as caught:
        packaged_embedder()
    message = str(caught.value)
    assert f"{MODEL_PACKAGE} can be imported but has no package metadata" in message
    assert f"Install the extra again with {INSTALL_HINT}" in message
    assert 'or set retrieval.mode = "bm25"' in message
    with pytest.raises(UsageError) as chosen:
        packaged_embedder(option="--retrieval")
    assert str(chosen.value).startswith("--retrieval hybrid: ")
    assert "has no package metadata" in str(chosen.value)


@pytest.mark.usefixtures("copied_model")
def test_build_with_a_model_without_package_metadata_exits_2(configured, capsys):
    _choose(configured, "hybrid")
    code, _, err = run(capsys, "index", "build")
    assert code == 2
    assert "has no package metadata" in err
