"""The estate feed: the canonical list of projects that may be indexed (pure parsing).

The feed at ``index.feed.url`` is a JSON array whose items are project paths
(``"my-org/go/config"``) or objects carrying one under ``"path"``. Paths are full
``path_with_namespace`` values, matched without regard to case. A feed that cannot be parsed is
not an empty feed: it makes every verdict that depends on it unresolved, so one bad deploy of
the feed cannot reject (and so delete) the whole estate. For the same reason a feed that lists
nothing at all is taken for a broken one: an estate with no project to index has no use for the
bot, while an empty file is a common way for a deploy to go wrong.
"""

from __future__ import annotations

import json

from bot.forge.base import Unknown
from bot.forge.predicate import feed_paths


def parse_feed(raw: bytes) -> frozenset[str] | Unknown:
    """The project paths the feed lists, or ``Unknown`` saying what is wrong with it."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return Unknown(f"the feed is not valid JSON ({exc})")
    if not isinstance(data, list):
        return Unknown("the feed is not a JSON array of project paths")
    paths: list[str] = []
    for index, item in enumerate(data):
        path = item.get("path") if isinstance(item, dict) else item
        if not isinstance(path, str) or not path.strip():
            return Unknown(
                f"feed item {index} is neither a project path nor an object with a 'path'"
            )
        paths.append(path)
    if not paths:
        return Unknown("the feed lists no project at all, which is taken for a broken feed")
    return feed_paths(paths)
