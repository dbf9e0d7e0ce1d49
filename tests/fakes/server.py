"""Run an aiohttp application on 127.0.0.x in a background thread (its own event loop).

Sync tests, async tests and subprocesses (``python -m bot.cli``) can all talk to it, because
it never shares the test's event loop.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future

from aiohttp import web


class ThreadedServer:
    """An aiohttp app served from a daemon thread until ``stop``."""

    def __init__(self, app: web.Application, host: str = "127.0.0.1") -> None:
        self.app = app
        self.host = host
        self.port = 0
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> ThreadedServer:
        self._thread.start()
        future: Future[int] = asyncio.run_coroutine_threadsafe(self._start(), self.loop)
        self.port = future.result(timeout=10)
        return self

    async def _start(self) -> int:
        # A fake must stop at once, even with a deliberately slow answer in progress.
        self._runner = web.AppRunner(
            self.app,
            access_log=None,
            handle_signals=False,
            shutdown_timeout=0.1,
            handler_cancellation=True,
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, 0)
        await site.start()
        server = site._server
        assert server is not None and server.sockets
        return int(server.sockets[0].getsockname()[1])

    def stop(self) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        self.loop.close()

    def __enter__(self) -> ThreadedServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
