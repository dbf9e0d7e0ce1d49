"""A fake Anthropic Messages API on 127.0.0.1, served by aiohttp in a thread of its own.

It answers ``POST /v1/messages`` with scripted behaviours, one per request, in order, and
keeps every request it received (headers and JSON body) so tests can assert on what the real
SDK sent. When the script runs out it repeats the last behaviour. Responses have the real
API's shapes: a ``tool_use`` message, or the ``{"type": "error", ...}`` error object. After
``hold()`` every request is kept open, unanswered, until the test calls ``release()``: a model
that hangs for exactly as long as a test needs it to, with no timer deciding anything. After
``allow_models(...)`` the key may use only the models named: a request for any other is answered
403 ``permission_error``, as the real API answers a key its workspace keeps from a model.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from tests.fakes.server import ThreadedServer

KEY = "sk-ant-test-0123456789abcdef"
# The real API's message for a valid key that may not use what it asked for.
MODEL_FORBIDDEN = "Your API key does not have permission to use the specified resource."


@dataclass(frozen=True)
class Behaviour:
    """One scripted response: a status, a JSON body, headers, and a delay before it."""

    status: int = 200
    body: Mapping[str, Any] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass(frozen=True)
class Received:
    """One request as the fake saw it."""

    path: str
    query: str
    headers: Mapping[str, str]
    body: Mapping[str, Any]
    raw: bytes
    at: str = field(default_factory=lambda: datetime.now(UTC).replace(microsecond=0).isoformat())


def tool_call(
    answer: str = "",
    citations: Any = (),
    declined: bool = False,
    reason: str = "",
    *,
    tool_input: Any = None,
    name: str = "answer",
    input_tokens: int = 812,
    output_tokens: int = 64,
) -> Behaviour:
    """A message whose only content is one call of the answer tool."""
    data = (
        tool_input
        if tool_input is not None
        else {
            "answer": answer,
            "citations": list(citations),
            "declined": declined,
            "reason": reason,
        }
    )
    return message([{"type": "tool_use", "id": "toolu_01Fake", "name": name, "input": data}],
                   "tool_use", input_tokens, output_tokens)  # fmt: skip


def message(
    content: list[dict[str, Any]],
    stop_reason: str,
    input_tokens: int = 812,
    output_tokens: int = 64,
) -> Behaviour:
    """A complete ``message`` response."""
    return Behaviour(
        body={
            "id": "msg_01Fake",
            "type": "message",
            "role": "assistant",
            "model": "claude-haiku-4-5",
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
        }
    )


def error(status: int, kind: str, text: str, headers: Mapping[str, str] | None = None) -> Behaviour:
    """An API error with the real error body."""
    return Behaviour(
        status=status,
        body={"type": "error", "error": {"type": kind, "message": text}, "request_id": "req_1"},
        headers=dict(headers or {}),
    )


# A behaviour may depend on the request: it is then a function of the request body.
Scripted = Behaviour | Callable[[Mapping[str, Any]], Behaviour]


def passage_number(body: Mapping[str, Any], heading: str) -> int:
    """The number the request gave the passage whose label names ``heading``."""
    lines = body["messages"][0]["content"].splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.startswith("-----BEGIN PASSAGE ") and heading in lines[i + 1]:
            return int(line.removeprefix("-----BEGIN PASSAGE ").rstrip("-"))
    raise AssertionError(f"no passage headed {heading!r} in the request")


def citing(answer: str, heading: str) -> Scripted:
    """Answer ``answer``, citing whichever passage number ``heading`` was given."""
    return lambda body: tool_call(answer, [passage_number(body, heading)])


class FakeAnthropic:
    """The fake server; ``start()`` it once, ``reset()`` it between tests."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self._script: list[Scripted] = []
        self._lock = threading.Lock()
        app = web.Application()
        app.router.add_post("/v1/messages", self._messages)
        self._server = ThreadedServer(app)
        self.url = ""
        self._gate: asyncio.Event | None = None  # set: requests held open until it is set
        self._models: frozenset[str] | None = None  # None: the key may use every model

    def start(self) -> FakeAnthropic:
        self.url = self._server.start().url
        return self

    def stop(self) -> None:
        self._server.stop()

    def script(self, *behaviours: Scripted) -> None:
        """Answer the next requests with ``behaviours``, in order (the last one repeats)."""
        with self._lock:
            self._script = list(behaviours)

    def allow_models(self, *models: str) -> None:
        """Let the key use only ``models`` from now on; any other is refused with a 403."""
        with self._lock:
            self._models = frozenset(models)

    def hold(self) -> None:
        """Keep every request from now on open, unanswered, until ``release()``."""
        with self._lock:
            self._gate = asyncio.Event()  # bound to the server's loop when first awaited

    def release(self) -> None:
        """Answer the held requests (as scripted) and stop holding new ones."""
        with self._lock:
            gate, self._gate = self._gate, None
        if gate is not None:
            self._server.loop.call_soon_threadsafe(gate.set)

    def reset(self) -> None:
        self.release()
        with self._lock:
            self._script = []
            self.received = []
            self._models = None

    def _next(self) -> Scripted:
        with self._lock:
            if not self._script:
                return error(500, "api_error", "the fake has no scripted response")
            return self._script.pop(0) if len(self._script) > 1 else self._script[0]

    async def _messages(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        try:
            body = json.loads(raw)
        except ValueError:
            body = {}
        with self._lock:
            self.received.append(
                Received(request.path, request.query_string, dict(request.headers), body, raw)
            )
        auth = request.headers.get("Authorization", "")
        if auth != f"Bearer {KEY}" and request.headers.get("x-api-key") != KEY:
            return _json(error(401, "authentication_error", "invalid x-api-key"))
        with self._lock:
            gate, models = self._gate, self._models
        if models is not None and body.get("model") not in models:
            return _json(error(403, "permission_error", MODEL_FORBIDDEN))
        if gate is not None:
            await gate.wait()
        scripted = self._next()
        behaviour = scripted if isinstance(scripted, Behaviour) else scripted(body)
        if behaviour.delay:
            await asyncio.sleep(behaviour.delay)
        return _json(behaviour)


def _json(behaviour: Behaviour) -> web.Response:
    return web.Response(
        status=behaviour.status,
        text=json.dumps(behaviour.body),
        content_type="application/json",
        headers=dict(behaviour.headers),
    )
