"""The ``anthropic`` provider: the Messages API through the official SDK, tool use forced.

The reply is forced through one tool whose input schema is the reply's shape, so the model
cannot answer in free prose. Each answer has one deadline (``answer.timeout``) that covers
the SDK's own retries too: the SDK honours any ``retry-after`` the server sends, however long,
and a question must not wait on that. A deadline reached while the API was still answering
429 or 5xx is reported as that, not as a slow model. Failures become ``ProviderError`` with a
message that says what to do and never contains the key; a reply the model did not finish (cut
off at the output token limit, refused, paused) or one that cannot be read (no answer tool call,
a field missing or of the wrong type) is such a failure too, never a decline. A redirect is
never followed: the request carries the question and its passages, and they go only to the
address configured, so a redirect is a failure that names where it pointed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from contextvars import ContextVar
from typing import Any, cast

import anthropic
import httpx2
from anthropic.types import Message

from bot.answer.composer import Answer, Passage, Usage, unfinished, unreadable
from bot.answer.prompt import INSTRUCTIONS, TOOL, TOOL_NAME, read_reply, user_message
from bot.config import Secret
from bot.errors import ProviderError
from bot.forge.origin import REDIRECTS, redact_urls

log = logging.getLogger(__name__)

# A short answer with its citations takes a few hundred tokens; the headroom is for answers
# heavy with code, which tokenises densely. Only the tokens written are paid for, and a reply
# this long still arrives well within the default answer.timeout.
MAX_TOKENS = 2048
MAX_RETRIES = 2  # three attempts in all; the SDK retries 408, 409, 429 and 5xx
PROVIDER = "anthropic"

# The HTTP statuses one answer's attempts got, in order. The client's response hook runs in the
# task that asked, so each answer sees its own; a list, so that a copy of the context still
# reaches the same one.
_statuses: ContextVar[list[int]] = ContextVar("statuses")


async def _note_status(response: httpx2.Response) -> None:
    statuses = _statuses.get(None)
    if statuses is not None:
        statuses.append(response.status_code)


class AnthropicComposer:
    """Composes with Claude through ``AsyncAnthropic``; one client per composer."""

    def __init__(
        self,
        api_key: Secret,
        model: str,
        timeout: float,
        *,
        base_url: str | None = None,
        max_retries: int = MAX_RETRIES,
    ) -> None:
        self._model = model
        self._timeout = timeout
        # How the address is named in messages, which asker and database both see: a proxy's
        # address may carry a password of its own.
        self._base_url = redact_urls(base_url) if base_url else "the Anthropic API"
        self._api = f"The Anthropic API at {self._base_url}" if base_url else "The Anthropic API"
        # base_url is passed only when configured, so the SDK keeps its own default.
        options: dict[str, Any] = {"base_url": base_url} if base_url else {}
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key.reveal(),
            timeout=timeout,
            max_retries=max_retries,
            # The SDK's aiohttp transport: the same requests, for less CPU per call than its
            # default HTTP stack (measured under load), on the HTTP client Discord uses too.
            # The SDK follows redirects by default, and a 307 or 308 would send the question
            # and its passages on to whatever host the redirect names.
            http_client=anthropic.DefaultAioHttpClient(
                event_hooks={"response": [_note_status]}, follow_redirects=False
            ),
            **options,
        )

    @property
    def provider(self) -> str:
        """``anthropic``."""
        return PROVIDER

    @property
    def model(self) -> str:
        """The configured model id."""
        return self._model

    async def compose(self, question: str, passages: Sequence[Passage]) -> Answer:
        """Ask the model, forcing the answer tool; see the module docstring for failures."""
        prompt = user_message(question, passages)
        started = time.perf_counter()  # from here on the time is the model's (and network's)
        statuses: list[int] = []
        _statuses.set(statuses)
        try:
            async with asyncio.timeout(self._timeout):
                message = await self._client.messages.create(
                    model=self._model,
                    max_tokens=MAX_TOKENS,
                    system=INSTRUCTIONS,
                    messages=[{"role": "user", "content": prompt}],
                    tools=[cast(Any, TOOL)],
                    tool_choice={"type": "tool", "name": TOOL_NAME},
                )
        except TimeoutError:
            raise self._timed_out(statuses) from None
        except anthropic.APITimeoutError:
            raise self._timed_out(statuses) from None
        except anthropic.APIStatusError as exc:
            if exc.status_code in REDIRECTS:
                raise _redirected(self._api, exc.response) from None
            raise _status_error(exc, self._model) from None
        except anthropic.APIConnectionError:
            raise ProviderError(
                f"Could not reach {self._base_url}. Check the network, or ANTHROPIC_BASE_URL "
                "if it is set, then ask again."
            ) from None
        except (anthropic.AnthropicError, ValueError, TypeError, AttributeError) as exc:
            # The SDK parses leniently and can trip over a body that is not a message at all;
            # whatever it raises inside this one call is the provider's failure, not ours.
            raise _unusable(self._base_url, type(exc).__name__) from None
        latency_ms = (time.perf_counter() - started) * 1000
        if not isinstance(message, Message) or not isinstance(message.content, list):
            raise _unusable(self._base_url, "not a message")
        if message.usage is None:
            raise _unusable(self._base_url, "no usage")
        usage = Usage(message.usage.input_tokens, message.usage.output_tokens)
        log.info(
            "composed with %s in %.0f ms (%s in, %s out tokens, stop %s)",
            self._model,
            latency_ms,
            usage.input_tokens,
            usage.output_tokens,
            message.stop_reason,
        )
        cut_short = unfinished(message.stop_reason, MAX_TOKENS)
        if cut_short is not None:
            raise ProviderError(cut_short)
        # getattr: leniently parsed blocks need not have the attributes their type promises.
        calls = [
            b
            for b in message.content
            if getattr(b, "type", None) == "tool_use" and getattr(b, "name", None) == TOOL_NAME
        ]
        if not calls:
            why = f"no {TOOL_NAME} tool call (stop reason {message.stop_reason})"
            raise ProviderError(unreadable(why))
        reply = read_reply(getattr(calls[0], "input", None))
        if isinstance(reply, str):
            raise ProviderError(unreadable(reply))
        return Answer(reply.text, reply.citations, reply.declined, reply.reason, usage, latency_ms)

    def _timed_out(self, statuses: Sequence[int]) -> ProviderError:
        # The SDK was waiting to retry (for as long as a retry-after said): the API's refusal,
        # not the model's speed, is what ran the deadline out, and a longer one rarely helps.
        last = statuses[-1] if statuses else None
        ran_out = f"when answer.timeout ({self._timeout:g} s) ran out. Ask again later."
        if last == 429:
            return ProviderError(
                f"The Anthropic API was still rate-limiting this key (HTTP 429) {ran_out}"
            )
        if last is not None and last >= 500:
            return ProviderError(
                f"The Anthropic API was still failing or overloaded (HTTP {last}) {ran_out}"
            )
        return ProviderError(
            f"The model did not answer within answer.timeout ({self._timeout:g} s). "
            "Ask again, or raise answer.timeout."
        )

    async def aclose(self) -> None:
        """Close the SDK's connection pool."""
        await self._client.close()


def _redirected(api: str, response: httpx2.Response) -> ProviderError:
    """The API answered with a redirect, which was not followed (see the module docstring)."""
    location = response.headers.get("location", "")
    try:
        target = response.url.join(location) if location else None
    except httpx2.InvalidURL:  # not shown as written: it might carry a password redact_urls misses
        target = None
    if target is None:
        where = "an address that is not a URL" if location else "no address at all"
        fix = ""
    else:
        where = redact_urls(str(target))
        # The client adds /v1/messages itself, so the address to configure is what comes before.
        root = str(target.copy_with(query=None, fragment=None)).removesuffix("/v1/messages")
        fix = f" ({redact_urls(root)}, if that is the API you meant)"
    return ProviderError(
        f"{api} answered with a redirect (HTTP {response.status_code}) to {where}; it was not "
        "followed, so nothing was sent there. Set ANTHROPIC_BASE_URL to the address the API "
        f"answers at without redirecting{fix}, then ask again."
    )


def _unusable(base_url: str, why: str) -> ProviderError:
    return ProviderError(
        f"The reply from {base_url} was not a usable message ({why}). If ANTHROPIC_BASE_URL "
        "points at a proxy, check it; otherwise ask again later."
    )


def _status_error(exc: anthropic.APIStatusError, model: str) -> ProviderError:
    detail = f"HTTP {exc.status_code}" + (f" {exc.type}" if exc.type else "")
    said = (exc.api_message or "")[:200]
    if isinstance(exc, anthropic.AuthenticationError):
        advice = "The key was refused: check ANTHROPIC_API_KEY."
    elif isinstance(exc, anthropic.PermissionDeniedError):
        # A key the API did not know would have been a 401: this one is known, and kept from
        # the model, so ANTHROPIC_API_KEY is not what to check.
        advice = _quoted(said) + (
            f"The key was accepted but is not allowed to use the model {model}: set "
            "answer.model to a model the key may use, or grant the key access to it."
        )
    elif isinstance(exc, anthropic.RateLimitError):
        advice = "The API is rate-limiting this key even after retrying: ask again later."
    elif isinstance(exc, anthropic.InternalServerError):
        advice = "The API is failing or overloaded even after retrying: ask again later."
    elif isinstance(exc, anthropic.NotFoundError) and "model" not in said.lower():
        # An unknown model is one 404; an address with no Messages API behind it (a proxy's
        # path mistyped, say; a trailing /v1 is refused when the configuration is read) is
        # the other, and answer.model cannot mend that.
        advice = _quoted(said) + (
            "Nothing answers at that address: check ANTHROPIC_BASE_URL if it is set (the "
            "client adds /v1/messages to it), otherwise ask again later."
        )
    else:
        advice = _quoted(said) + _refusal_advice(exc.type, said)
    return ProviderError(f"The Anthropic API answered {detail}. {advice}")


def _quoted(said: str) -> str:
    """What the API said, as a sentence of its own, or nothing when it said nothing."""
    if not said:
        return ""
    # Its messages mostly end in a full stop already; a second one would read as a typo.
    stop = "" if said.rstrip().endswith((".", "!", "?")) else "."
    return f"It said: {said.rstrip()}{stop} "


def _refusal_advice(kind: str | None, said: str) -> str:
    """What to do about a request the API refused, going by its error type and message."""
    text = said.lower()
    if kind == "request_too_large" or "too long" in text or "too many tokens" in text:
        return (
            "The passages and the question were too long for the model: ask a shorter "
            "question, or set answer.model to a model with a larger context window."
        )
    if kind == "billing_error" or "credit balance" in text:
        return "Check the plan and credit of the account behind ANTHROPIC_API_KEY, then ask again."
    if "model" in text:
        return "Check answer.model, then ask again."
    # Nothing the configuration can change: phpbotscout's request did not suit this API.
    return (
        "Ask again; if it keeps happening, check ANTHROPIC_BASE_URL if it is set, or report "
        "the message above."
    )
