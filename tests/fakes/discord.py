"""A fake Discord on 127.0.0.1: the REST API and a zlib-stream websocket gateway, in one app.

The real ``hikari.GatewayBot`` connects to it exactly as it would to Discord: it asks
``GET /gateway/bot`` where the gateway is, opens the websocket, identifies, and receives
``READY``. Tests then dispatch ``INTERACTION_CREATE`` events (a slash command, a button
press) and read what the bot sent back over REST: every request is kept, with its headers
and JSON body, and grouped by the interaction it answers. ``close_session`` ends the session
with a close code, as Discord does when it revokes the token; ``refuse_identify`` answers the
next IDENTIFY with one instead of ``READY``, as Discord does for a token or intents it refuses.

The fake runs in a thread with its own event loop, so a bot in another thread, a ``serve``
subprocess and a benchmark can all use it. Its methods are safe to call from any thread and
block until done; never call them from the event loop the bot runs on.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import threading
import time
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aiohttp import WSMsgType, web

from tests.fakes.server import ThreadedServer

BOT_ID = 1100000000000000001
APP_ID = BOT_ID
GUILD_ID = 1200000000000000002
CHANNEL_ID = 1300000000000000003
# A token hikari accepts: its first segment is the bot's id in base64.
TOKEN = base64.b64encode(str(BOT_ID).encode()).decode().rstrip("=") + ".GfAkE0.fake-token-secret"

EPHEMERAL = 1 << 6
# The reasons Discord's gateway gives with the close codes that end a session for good.
CLOSE_REASONS = {
    4004: "Authentication failed.",
    4010: "Invalid shard.",
    4011: "Sharding required.",
    4012: "Invalid API version.",
    4013: "Invalid intent(s).",
    4014: "Disallowed intent(s).",
}
_MESSAGE_RESPONSES = {4, 7}  # CHANNEL_MESSAGE_WITH_SOURCE, UPDATE_MESSAGE


@dataclass(frozen=True)
class Call:
    """One REST request the bot made."""

    method: str
    path: str  # without the /api/v10 prefix
    query: Mapping[str, str]
    headers: Mapping[str, str]
    body: Any
    at: float  # time.perf_counter() when it arrived


@dataclass(frozen=True)
class Reply:
    """A message the bot showed in answer to an interaction."""

    how: str  # "callback" (initial response), "edit" (of the original) or "followup"
    content: str
    embeds: list[dict[str, Any]]
    components: list[dict[str, Any]]
    flags: int
    allowed_mentions: Any
    message: dict[str, Any]  # the message object the fake answered with
    at: float

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def custom_ids(self) -> list[str]:
        return [
            c["custom_id"]
            for row in self.components
            for c in row.get("components", [])
            if "custom_id" in c
        ]

    @property
    def text(self) -> str:
        """Everything a reader sees: the content and every embed's title, description, footer."""
        parts = [self.content]
        for embed in self.embeds:
            parts += [embed.get("title", ""), embed.get("description", "")]
            parts.append(embed.get("footer", {}).get("text", ""))
            for f in embed.get("fields", []):
                parts += [f.get("name", ""), f.get("value", "")]
        return "\n".join(p for p in parts if p)


@dataclass
class Interaction:
    """One dispatched interaction and the REST calls that answered it."""

    id: int
    token: str
    name: str
    user_id: int
    dispatched_at: float
    calls: list[Call] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)
    deferred: bool = False
    deferred_flags: int = 0  # a deferred response's flags hold for the reply edited in later


class FakeDiscord:
    """The fake; ``start()`` it, point the bot at ``api_url``, ``stop()`` it after the bot."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.commands: dict[int | None, list[dict[str, Any]]] = {}  # guild id (None: global)
        self.identified = 0
        self.gateway_frames: list[dict[str, Any]] = []
        self.fail_next: dict[str, int] = {}  # "METHOD path-prefix" -> status, once
        self.refuse_identify: int | None = None  # close code for the next IDENTIFY, once
        self.sessions_remaining = 1000  # session starts Discord still allows in its window
        self.gateway_url: str | None = None  # where GET /gateway/bot sends the bot, if not here
        self._interactions: dict[str, Interaction] = {}  # by token
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._ids = itertools.count(1400000000000000000)
        self._seq = itertools.count(2)
        self._ws: web.WebSocketResponse | None = None
        self._compress: Any = None
        app = web.Application()
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._rest)
        app.on_shutdown.append(self._close_gateway)
        self._server = ThreadedServer(app)
        self._loop = self._server.loop
        self.url = ""

    # -- lifecycle -------------------------------------------------------------------------

    @property
    def api_url(self) -> str:
        return f"{self.url}/api/v10"

    def start(self) -> FakeDiscord:
        self.url = self._server.start().url
        return self

    def stop(self) -> None:
        self._server.stop()

    def __enter__(self) -> FakeDiscord:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    async def _close_gateway(self, app: web.Application) -> None:
        if self._ws is not None and not self._ws.closed:
            await self._ws.close()

    def reset(self) -> None:
        """Forget every request and interaction (the connection stays up)."""
        with self._lock:
            self.calls.clear()
            self._interactions.clear()
            self.fail_next.clear()
            self.refuse_identify = None
            self.sessions_remaining = 1000

    # -- the gateway -------------------------------------------------------------------------

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        self._ws = ws
        self._compress = zlib.compressobj()
        await self._send({"op": 10, "d": {"heartbeat_interval": 41250}, "s": None, "t": None})
        async for msg in ws:
            if msg.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
                break
            frame = json.loads(msg.data)
            with self._lock:
                self.gateway_frames.append(frame)
            if frame["op"] == 1:  # heartbeat
                await self._send({"op": 11, "d": None, "s": None, "t": None})
            elif frame["op"] == 2:  # identify
                with self._lock:
                    refusal, self.refuse_identify = self.refuse_identify, None
                if refusal is not None:
                    await ws.close(code=refusal, message=CLOSE_REASONS.get(refusal, "").encode())
                    break
                await self._send({"op": 0, "t": "READY", "s": 1, "d": self._ready(request)})
                with self._lock:
                    self.identified += 1
                self._notify()
        return ws

    def _ready(self, request: web.Request) -> dict[str, Any]:
        return {
            "v": 10,
            "user": {**_user(BOT_ID, "phpbotscout"), "bot": True, "mfa_enabled": False, "flags": 0},
            "guilds": [],
            "session_id": "fake-session",
            "resume_gateway_url": f"ws://{request.host}/gateway",
            "shard": [0, 1],
            "application": {"id": str(APP_ID), "flags": 0},
        }

    async def _send(self, payload: dict[str, Any]) -> None:
        ws = self._ws
        if ws is None or ws.closed:
            raise RuntimeError("the bot is not connected to the fake gateway")
        data = self._compress.compress(json.dumps(payload).encode())
        data += self._compress.flush(zlib.Z_SYNC_FLUSH)
        await ws.send_bytes(data)

    def _dispatch(self, event: str, data: dict[str, Any]) -> None:
        payload = {"op": 0, "t": event, "s": next(self._seq), "d": data}
        asyncio.run_coroutine_threadsafe(self._send(payload), self._loop).result(5)

    def close_session(self, code: int, reason: str = "") -> None:
        """End the session with a websocket close frame carrying ``code``, as Discord does.

        Discord closes with 4004 when the token is reset or revoked and with 4013 or 4014 for
        intents it will not grant; for those a client must not reconnect. ``reason`` defaults
        to the one Discord sends with the code.
        """
        message = (reason or CLOSE_REASONS.get(code, "")).encode()
        asyncio.run_coroutine_threadsafe(self._close(code, message), self._loop).result(5)

    async def _close(self, code: int, message: bytes) -> None:
        ws = self._ws
        if ws is None or ws.closed:
            raise RuntimeError("the bot is not connected to the fake gateway")
        await ws.close(code=code, message=message)

    # -- dispatching interactions ----------------------------------------------------------

    def command(
        self,
        name: str,
        options: Mapping[str, str | int] | None = None,
        *,
        user: int = 1500000000000000001,
        guild: int | None = GUILD_ID,
    ) -> Interaction:
        """Dispatch a slash command as ``user`` and return its interaction."""
        data: dict[str, Any] = {"id": str(next(self._ids)), "name": name, "type": 1}
        with self._lock:
            # A command synced to the guild says so, as Discord's does (lightbulb looks it up
            # among that guild's commands); otherwise it is a global command.
            in_guild = [c for c in self.commands.get(guild, []) if c["name"] == name]
            in_global = [c for c in self.commands.get(None, []) if c["name"] == name]
        if guild is not None and in_guild:
            data["id"] = in_guild[0]["id"]
            data["guild_id"] = str(guild)
        elif in_global:
            data["id"] = in_global[0]["id"]
        if options:
            data["options"] = [
                {"name": k, "type": 4 if isinstance(v, int) else 3, "value": v}
                for k, v in options.items()
            ]
        return self._interact(2, name, data, user, guild)

    def press(
        self,
        reply: Reply,
        custom_id: str,
        *,
        user: int = 1500000000000000001,
        guild: int | None = GUILD_ID,
    ) -> Interaction:
        """Dispatch a press of the button ``custom_id`` on the message ``reply`` showed."""
        data = {"custom_id": custom_id, "component_type": 2}
        return self._interact(3, custom_id, data, user, guild, message=reply.message)

    def _interact(
        self,
        kind: int,
        name: str,
        data: dict[str, Any],
        user: int,
        guild: int | None,
        message: dict[str, Any] | None = None,
    ) -> Interaction:
        interaction_id = next(self._ids)
        token = f"itoken-{interaction_id}"
        payload: dict[str, Any] = {
            "id": str(interaction_id),
            "application_id": str(APP_ID),
            "type": kind,
            "token": token,
            "version": 1,
            "app_permissions": "2248473465835073",
            "locale": "en-GB",
            "guild_locale": "en-GB",
            "context": 0 if guild is not None else 1,  # a guild, or the bot's direct messages
            "attachment_size_limit": 10485760,
            "authorizing_integration_owners": {"0": str(guild or 0)},
            "channel_id": str(CHANNEL_ID),
            "channel": {"id": str(CHANNEL_ID), "type": 0},
            "entitlements": [],
            "data": data,
        }
        if guild is not None:
            payload["guild_id"] = str(guild)
            payload["member"] = {
                "user": _user(user, f"user{user % 1000}"),
                "roles": [],
                "joined_at": "2026-01-01T00:00:00+00:00",
                "permissions": "2248473465835073",
                "deaf": False,
                "mute": False,
                "flags": 0,
            }
        else:
            payload["user"] = _user(user, f"user{user % 1000}")
        if message is not None:
            payload["message"] = message
        interaction = Interaction(interaction_id, token, name, user, time.perf_counter())
        with self._lock:
            self._interactions[token] = interaction
        self._dispatch("INTERACTION_CREATE", payload)
        return interaction

    # -- waiting ---------------------------------------------------------------------------

    def until(self, predicate: Callable[[], bool], timeout: float = 5.0) -> None:
        """Block until ``predicate()`` holds (checked after every request), or fail."""
        with self._changed:
            if not self._changed.wait_for(predicate, timeout):
                raise AssertionError(f"the fake Discord waited {timeout} s in vain")

    def reply(self, interaction: Interaction, n: int = 1, timeout: float = 5.0) -> Reply:
        """The ``n``-th message the bot showed for ``interaction`` (waiting for it)."""
        self.until(lambda: len(interaction.replies) >= n, timeout)
        return interaction.replies[n - 1]

    def _notify(self) -> None:
        with self._changed:
            self._changed.notify_all()

    # -- REST ------------------------------------------------------------------------------

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        raw = await request.read()
        body = json.loads(raw) if raw and request.content_type == "application/json" else None
        if body is None and raw and request.content_type.startswith("multipart/"):
            body = _payload_json(raw)
        call = Call(
            request.method,
            path,
            dict(request.query),
            dict(request.headers),
            body,
            time.perf_counter(),
        )
        with self._lock:
            self.calls.append(call)
            status = self._take_failure(call)
        try:
            if status is not None:
                return _json({"message": "scripted failure", "code": 0}, status)
            return self._route(call)
        finally:
            self._notify()

    def _take_failure(self, call: Call) -> int | None:
        for key, status in list(self.fail_next.items()):
            method, _, prefix = key.partition(" ")
            if call.method == method and call.path.startswith(prefix):
                del self.fail_next[key]
                return status
        return None

    def _route(self, call: Call) -> web.StreamResponse:
        parts = call.path.strip("/").split("/")
        if call.path == "/gateway/bot":
            return _json(
                {
                    "url": self.gateway_url or self.url.replace("http://", "ws://") + "/gateway",
                    "shards": 1,
                    "session_start_limit": {
                        "total": 1000,
                        "remaining": self.sessions_remaining,
                        "reset_after": 0,
                        "max_concurrency": 1,
                    },
                }
            )
        if call.path == "/oauth2/applications/@me":
            return _json(_application())
        if parts[0] == "applications" and parts[-1] == "commands":
            guild = int(parts[3]) if len(parts) == 5 else None
            return self._commands(call, guild)
        if parts[0] == "interactions" and parts[-1] == "callback":
            return self._callback(call, parts[2])
        if parts[0] == "webhooks":
            return self._webhook(call, parts[2], parts[3:])
        missing = f"the fake has no route {call.method} {call.path}"
        return _json({"message": missing, "code": 0}, 404)

    def _commands(self, call: Call, guild: int | None) -> web.StreamResponse:
        with self._lock:
            if call.method == "PUT":
                self.commands[guild] = [
                    {
                        "id": str(next(self._ids)),
                        "type": 1,
                        "application_id": str(APP_ID),
                        "version": str(next(self._ids)),
                        "default_member_permissions": None,
                        **({"guild_id": str(guild)} if guild else {}),
                        **command,
                    }
                    for command in call.body
                ]
            return _json(self.commands.get(guild, []))

    def _callback(self, call: Call, token: str) -> web.StreamResponse:
        interaction = self._interaction(token, call)
        if interaction is None:
            return _json({"message": "Unknown interaction", "code": 10062}, 404)
        kind = call.body["type"]
        data = call.body.get("data") or {}
        with self._lock:
            if kind in (5, 6):
                interaction.deferred = True
                interaction.deferred_flags = data.get("flags") or 0
            elif kind in _MESSAGE_RESPONSES:
                message = self._message(data)
                interaction.replies.append(_reply("callback", data, message, call.at))
        return _json({"interaction": {"id": str(interaction.id), "type": 2}})

    def _webhook(self, call: Call, token: str, rest: list[str]) -> web.StreamResponse:
        interaction = self._interaction(token, call)
        if interaction is None:
            return _json({"message": "Unknown Webhook", "code": 10015}, 404)
        if call.method == "DELETE":
            return web.Response(status=204)
        data = call.body or {}
        how = "followup" if call.method == "POST" else "edit"
        if how == "edit" and interaction.deferred_flags:
            data = {**data, "flags": interaction.deferred_flags}
        message = self._message(data)
        with self._lock:
            interaction.replies.append(_reply(how, data, message, call.at))
        return _json(message)

    def _interaction(self, token: str, call: Call) -> Interaction | None:
        with self._lock:
            interaction = self._interactions.get(token)
            if interaction is not None:
                interaction.calls.append(call)
            return interaction

    def _message(self, data: Mapping[str, Any]) -> dict[str, Any]:
        components = [
            {
                **row,
                "id": next(self._ids) % 1000,
                "components": [
                    {**c, "id": next(self._ids) % 1000} for c in row.get("components", [])
                ],
            }
            for row in data.get("components") or []
        ]
        return {
            "id": str(next(self._ids)),
            "channel_id": str(CHANNEL_ID),
            "author": {**_user(BOT_ID, "phpbotscout"), "bot": True},
            "content": data.get("content") or "",
            "timestamp": datetime.now(UTC).isoformat(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [],
            "embeds": [{"type": "rich", **e} for e in data.get("embeds") or []],
            "components": components,
            "pinned": False,
            "type": 20,
            "flags": data.get("flags") or 0,
            "application_id": str(APP_ID),
        }

    # -- reading what happened -------------------------------------------------------------

    def interactions(self) -> list[Interaction]:
        with self._lock:
            return list(self._interactions.values())

    def message_calls(self) -> list[Call]:
        """Every request that showed or changed a message."""
        with self._lock:
            return [c for c in self.calls if _shows_message(c)]

    def messages_sent(self) -> list[dict[str, Any]]:
        """The message data of every such request (a callback's ``data``, a webhook's body)."""
        return [c.body["data"] if "type" in c.body else c.body for c in self.message_calls()]


def _shows_message(call: Call) -> bool:
    if call.path.startswith("/webhooks/") and call.method in ("POST", "PATCH"):
        return True
    return call.path.endswith("/callback") and call.body.get("type") in _MESSAGE_RESPONSES


def _reply(how: str, data: Mapping[str, Any], message: dict[str, Any], at: float) -> Reply:
    return Reply(
        how=how,
        content=data.get("content") or "",
        embeds=list(data.get("embeds") or []),
        components=message["components"],
        flags=data.get("flags") or 0,
        allowed_mentions=data.get("allowed_mentions"),
        message=message,
        at=at,
    )


def _payload_json(raw: bytes) -> Any:
    # A message with attachments travels as multipart; its JSON is the "payload_json" part.
    text = raw.decode("utf-8", "replace")
    start = text.find("{")
    end = text.rfind("}")
    return json.loads(text[start : end + 1]) if start >= 0 else None


def _user(user_id: int, name: str) -> dict[str, Any]:
    return {
        "id": str(user_id),
        "username": name,
        "discriminator": "0",
        "avatar": None,
        "global_name": name,
    }


def _application() -> dict[str, Any]:
    return {
        "id": str(APP_ID),
        "name": "phpbotscout",
        "icon": None,
        "description": "A fake application",
        "bot_public": True,
        "bot_require_code_grant": False,
        "owner": _user(1600000000000000001, "owner"),
        "verify_key": "0" * 64,
        "flags": 0,
        "approximate_guild_count": 1,
        "approximate_user_install_count": 0,
        "team": None,
    }


def _json(data: Any, status: int = 200) -> web.Response:
    return web.Response(status=status, text=json.dumps(data), content_type="application/json")
