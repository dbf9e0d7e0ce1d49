"""An engine over local git repositories with its index built, for tests of how it ranks."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path

from bot import config as config_module
from bot.engine import Engine
from tests.gitrepo import make_repo


@asynccontextmanager
async def built_engine(
    tmp_path: Path, repos: Mapping[str, Mapping[str, str]]
) -> AsyncIterator[Engine]:
    """An engine in bm25 mode whose index holds ``repos`` (name to files), each one commit."""
    estate = tmp_path / "estate"
    for name, files in repos.items():
        make_repo(estate / name, dict(files))
    raw = {
        "sources": {"local": [str(estate)]},
        "index": {"path": str(tmp_path / "index.sqlite")},
        "retrieval": {"mode": "bm25"},
    }
    config = config_module.from_mapping(raw, env={}, base=tmp_path)
    async with await Engine.open(config) as opened:
        await opened.refresh()
        yield opened
