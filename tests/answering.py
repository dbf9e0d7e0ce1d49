"""A small estate to answer from, and configurations pointing at the fake providers."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from bot import config as config_module
from bot.config import Config
from bot.engine import Engine
from tests.fakes.anthropic_server import KEY
from tests.gitrepo import make_repo

GUIDE = """# Widget guide

Widgets are small services that frobnicate.

## Installing widgets

Run `widgetctl install` to install the widget service.

## Tuning the frobnicator

Set `frobnication.depth` to seven in `widgets.toml`. Deeper frobnication is slower.
"""

FAQ = """# Widget FAQ

## Is there a hosted widget service?

No. There is no hosted widget service; every widget runs on your own machines.
"""


def make_estate(root: Path) -> Path:
    """One repository, ``widgets``, with a docs site of two pages."""
    make_repo(
        root / "widgets",
        {
            "zensical.toml": '[project]\nsite_name = "W"\nsite_url = "https://widgets.example/"\n',
            "docs/guide.md": GUIDE,
            "docs/faq.md": FAQ,
        },
    )
    return root


def answer_config(
    tmp_path: Path,
    estate: Path,
    provider: str,
    *,
    env: dict[str, str] | None = None,
    timeout: float = 5.0,
    extra: dict[str, Any] | None = None,
) -> Config:
    """A configuration indexing ``estate`` and answering with ``provider``."""
    raw: dict[str, Any] = {
        "sources": {"local": [str(estate)]},
        "index": {"path": str(tmp_path / "index.sqlite")},
        "answer": {"provider": provider, "timeout": timeout},
        **(extra or {}),
    }
    return config_module.from_mapping(raw, env=env or {}, base=tmp_path)


def anthropic_env(base_url: str, key: str = KEY) -> dict[str, str]:
    """The environment the anthropic provider reads: its key and the fake's address."""
    return {"ANTHROPIC_API_KEY": key, "ANTHROPIC_BASE_URL": base_url}


async def open_indexed(config: Config) -> Engine:
    """Open the engine and build its index; a failed build closes it again.

    Left open, the index's worker thread would keep the test run from ever exiting.
    """
    engine = await Engine.open(config)
    try:
        report = await engine.refresh()
        assert not report.failed, report
    except BaseException:
        await engine.close()
        raise
    return engine


@asynccontextmanager
async def built_engine(
    tmp_path: Path, repos: Mapping[str, Mapping[str, str]]
) -> AsyncIterator[Engine]:
    """An engine in bm25 mode whose index holds ``repos`` (name to files), each one commit."""
    estate = tmp_path / "estate"
    for name, files in repos.items():
        make_repo(estate / name, dict(files))
    config = answer_config(tmp_path, estate, "none", extra={"retrieval": {"mode": "bm25"}})
    engine = await open_indexed(config)
    try:
        yield engine
    finally:
        await engine.close()


def number_of(engine_results: Any, heading: str) -> int:
    """The passage number (from 1) of the passage with ``heading``."""
    for n, result in enumerate(engine_results, 1):
        if result.heading == heading:
            return n
    raise AssertionError(f"no passage headed {heading!r}")
