"""The scheduler's way of refreshing: only sources past their own interval."""

from __future__ import annotations

from pathlib import Path

from bot import config as config_module
from bot.engine import Engine
from bot.refresh import refresh
from tests.gitrepo import make_repo


async def test_due_only_refreshes_just_the_sources_past_their_interval(tmp_path: Path, home):
    for name in ("fast", "slow"):
        make_repo(tmp_path / "estate" / name, {"README.md": f"# {name}\n\nText.\n"})
    raw = {
        "sources": {
            "local": [str(tmp_path / "estate")],
            "refresh_intervals": {"FAST": "1m"},  # a name in any letter case
        },
        "index": {"path": str(tmp_path / "index.sqlite"), "refresh_interval": "1d"},
    }
    config = config_module.from_mapping(raw, env={}, base=tmp_path)
    async with await Engine.open(config) as engine:
        first = await refresh(config, engine.store, due_only=True)
        assert sorted(o.name for o in first.outcomes) == ["fast", "slow"]  # never refreshed
        assert (await refresh(config, engine.store, due_only=True)).outcomes == ()
        async with engine.store.write() as conn:  # both were last refreshed two hours ago
            await conn.execute(
                "UPDATE sources SET refreshed_at = "
                "strftime('%Y-%m-%dT%H:%M:%S+00:00', 'now', '-2 hours')"
            )
        due = await refresh(config, engine.store, due_only=True)
        assert [o.name for o in due.outcomes] == ["fast"]
        everything = await refresh(config, engine.store)
        assert sorted(o.name for o in everything.outcomes) == ["fast", "slow"]
