"""The GitLab push webhook: a push refreshes the pushed source now, not at the next schedule.

Off unless ``webhook.listen`` is set, and then it needs ``PHPBOTSCOUT_WEBHOOK_SECRET``:
GitLab sends that secret in ``X-Gitlab-Token`` and anything without it is refused. The
comparison takes the same time however much of a wrong token matches. A push to an indexed
source (``project.path_with_namespace``, letter case aside, as GitLab's paths are) starts its
refresh, through the same lock as the schedule, in the background, so GitLab gets its answer
at once; a push to any other project is acknowledged and ignored.
"""

from __future__ import annotations

import hmac
import json
import logging
from typing import Any

from aiohttp import web

from bot.config import Secret
from bot.engine import Engine
from bot.errors import ConfigError, StoreError
from bot.forge.predicate import named_by
from bot.refresher import Refresher

log = logging.getLogger(__name__)

PATH = "/webhook/gitlab"
EVENTS = ("Push Hook", "Tag Push Hook")
MAX_BODY = 4 * 1024 * 1024  # GitLab trims a push event's commit list, so events stay small
# Seconds a request still arriving gets when serve stops: a handler needs only its body, so
# more is a stalled sender, and aiohttp's own 60 s would outlast a service manager's patience.
STOP_GRACE = 2.0


class PushWebhook:
    """The aiohttp application and server for the push webhook."""

    def __init__(self, engine: Engine, refresher: Refresher, secret: Secret) -> None:
        self.engine = engine
        self.refresher = refresher
        self._secret = secret.reveal().encode()
        self._runner: web.AppRunner | None = None
        self.port = 0

    def app(self) -> web.Application:
        """The application: one route, ``POST /webhook/gitlab``."""
        app = web.Application(client_max_size=MAX_BODY)
        app.router.add_post(PATH, self.handle)
        return app

    async def start(self, host: str, port: int) -> None:
        """Listen on ``host:port`` (port 0 picks a free one; see ``self.port``).

        Raises:
            ConfigError: nothing can listen there: the port is taken, or the host is not an
                address of this machine.
        """
        self._runner = web.AppRunner(
            self.app(), access_log=None, handle_signals=False, shutdown_timeout=STOP_GRACE
        )
        await self._runner.setup()
        try:
            await web.TCPSite(self._runner, host, port).start()
        except OSError as exc:
            await self.stop()
            shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
            raise ConfigError(
                "webhook.listen",
                shown,
                f"serve cannot listen there ({exc.strerror or exc}); stop what listens on that "
                "port or choose another, and give a host that is an address of this machine",
            ) from None
        self.port = int(self._runner.addresses[0][1])
        log.info("push webhook listening on %s:%d%s", host, self.port, PATH)

    async def stop(self) -> None:
        """Stop listening."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def handle(self, request: web.Request) -> web.Response:
        """Check the token, find the pushed source, and start its refresh."""
        # aiohttp decodes header bytes that are not UTF-8 as lone surrogates; turning them
        # back into the bytes that were sent lets any token be compared, and refused.
        given = request.headers.get("X-Gitlab-Token", "").encode("utf-8", "surrogateescape")
        if not hmac.compare_digest(given, self._secret):
            log.warning("push webhook: refused a request from %s: wrong token", request.remote)
            return _answer(401, error="the X-Gitlab-Token header does not match the secret")
        event = request.headers.get("X-Gitlab-Event", "")
        if event not in EVENTS:
            log.info("push webhook: ignored a %r event", event)
            return _answer(202, ignored=f"not a push event: {event or 'no X-Gitlab-Event'}")
        try:
            body = json.loads(await request.read())
            name = body["project"]["path_with_namespace"]
        except (ValueError, KeyError, TypeError, RecursionError):  # JSON nested past the stack
            return _answer(400, error="not a push event: no project.path_with_namespace")
        if not isinstance(name, str) or not name:
            return _answer(400, error="project.path_with_namespace is empty")
        try:
            sources = await self.engine.sources()
        except StoreError as exc:
            # The reason and the remedy are the operator's, in the log; a 5xx tells GitLab the
            # fault is on this side and may pass, where a 4xx says its hook is misconfigured.
            log.warning("push webhook: could not refresh %s: %s", name, exc)
            return _answer(503, error="the index could not be read; see serve's log")
        # An unresolved source is still answered from its last index, and its push may be the
        # very change that resolves it (a docs site put back): only a rejected one is not.
        indexed = [s.name for s in sources if s.verdict in ("admitted", "unresolved")]
        # GitLab's paths ignore case: a project renamed in case alone pushes under its new
        # spelling before the next refresh has learnt it.
        found = named_by(name, indexed)
        if len(found) != 1:
            # Acknowledged, not refused: a group's hook sends every project's pushes, and GitLab
            # disables a hook after four failed deliveries in a row, 4xx included, which would
            # lose the pushes to the sources that are indexed.
            why = (
                f"matches {', '.join(found)}, which differ in letter case alone: name one exactly"
                if found
                else "is not an indexed source"
            )
            log.info("push webhook: ignored a push to %r, which %s", name, why)
            return _answer(202, ignored=f"{name} {why}")
        (source,) = found
        queued = self.refresher.request(source, why="push webhook")
        log.info("push webhook: refresh of %s %s", source, "queued" if queued else "already queued")
        return _answer(202, refreshing=source)


def _answer(status: int, **data: Any) -> web.Response:
    return web.json_response(data, status=status)
