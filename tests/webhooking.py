"""Talking to the push webhook of a running bot as GitLab does, for tests and Gherkin steps."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from bot.config import Config
from tests.discord_bot import BotThread, bot_config
from tests.fakes.discord import FakeDiscord

SECRET = "push-secret-0123456789"


def free_port() -> int:
    """A port nothing listens on now: ``webhook.listen`` takes no port 0."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def webhook_config(
    root: Path, estate: Path, discord: FakeDiscord, extra: dict[str, Any] | None = None
) -> Config:
    """The configuration of a bot serving the webhook on a free port, with ``SECRET``."""
    return bot_config(
        root,
        estate,
        discord,
        extra={"webhook": {"listen": f"127.0.0.1:{free_port()}"}, **(extra or {})},
        env={"PHPBOTSCOUT_WEBHOOK_SECRET": SECRET},
    )


def port_of(bot: BotThread) -> int:
    assert bot.service is not None and bot.service.webhook is not None
    return bot.service.webhook.port


def push_body(project: str) -> bytes:
    """A push event's body, as much of it as the webhook reads."""
    return json.dumps({"object_kind": "push", "project": {"path_with_namespace": project}}).encode()


def send(
    bot: BotThread, body: bytes, token: str = SECRET, event: str = "Push Hook"
) -> tuple[int, Any]:
    """POST ``body`` to the webhook; the status and the JSON it was answered with."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port_of(bot)}/webhook/gitlab",
        data=body,
        headers={
            "X-Gitlab-Token": token,
            "X-Gitlab-Event": event,
            "Content-Type": "application/json",
        },
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def stalled_push(bot: BotThread) -> socket.socket:
    """A push that is in flight, its body begun and never finished; the caller closes it."""
    conn = socket.create_connection(("127.0.0.1", port_of(bot)), timeout=10)
    conn.sendall(
        b"POST /webhook/gitlab HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Gitlab-Token: "
        + SECRET.encode()
        + b"\r\nX-Gitlab-Event: Push Hook\r\nContent-Length: 100\r\n"
        b"Expect: 100-continue\r\n\r\n"
    )
    # The server asks for the body once the handler is on its way to read it: from here the
    # request is in flight, and only part of its body ever comes.
    assert conn.recv(1024).startswith(b"HTTP/1.1 100 Continue")
    conn.sendall(b'{"project"')
    return conn
