"""Two commands opening a new index file at once, in the order that makes them race."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

from bot.index.store import MIGRATIONS_DIR, Store


async def open_as_another_migrates(path: Path, scratch: Path) -> Store:
    """Open the index at ``path`` as a command that has found it unmigrated, while another
    command migrates it before this one gets to write: what two builds started together do.

    The first command's migrations directory holds a pipe in place of its first file, so it
    stops there, having read which migrations the file has, until the other has migrated it.
    """
    plain, piped = scratch / "plain", scratch / "piped"
    shutil.copytree(MIGRATIONS_DIR, plain)
    shutil.copytree(MIGRATIONS_DIR, piped)
    first = min(piped.glob("*.sql"))
    first.unlink()
    os.mkfifo(first)
    opening = asyncio.create_task(Store.open(path, piped))
    pipe = await asyncio.to_thread(open, first, "w", encoding="utf-8")  # once it is reading
    try:
        await (await Store.open(path, plain)).close()
        os.replace(shutil.copy(plain / first.name, scratch / first.name), first)  # read later
        pipe.write((plain / first.name).read_text(encoding="utf-8"))
    finally:
        pipe.close()
    return await opening
