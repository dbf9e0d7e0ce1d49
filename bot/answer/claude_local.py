"""The ``claude-local`` provider: a locally installed, already signed-in ``claude`` binary.

It runs ``claude -p`` once per question with structured output (``--json-schema``), no tools
and no saved session, the instructions as the system prompt and the fenced passages on
standard input (never on the command line, where other users could read them), and with
phpbotscout's own secrets (Discord, GitLab, webhook) removed from its environment. It runs in
an empty directory made for that run and removed after it, so no CLAUDE.md, settings or hooks
of the directory phpbotscout was started in can steer it. The binary's result object says
whether it worked:

* exit status 0, ``is_error`` false and a ``structured_output`` object: a draft;
* exit status 0 but no ``structured_output``, or one that lacks a field or has one of the
  wrong type: the model's reply could not be read. It says nothing about the passages, so the
  provider failed (``ProviderError``), and the question is not declined;
* ``is_error`` true, a non-zero exit, unreadable output or the deadline passing: the
  provider failed (``ProviderError``). At the deadline the binary is killed together with
  every process it started: it runs in a process group of its own for that. A question
  dropped while it runs (cancelled) kills the group the same way;
* a ``subtype`` other than ``success`` (the binary stopped at a limit of its own, such as
  ``error_max_turns``, which it may report with ``is_error`` false), or no
  ``structured_output`` with a stop reason that says the reply was cut short: the provider
  failed too. Neither is the model's reading of the passages.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bot.answer.composer import Answer, Passage, Usage, unfinished, unreadable
from bot.answer.prompt import INSTRUCTIONS, REPLY_SCHEMA, read_reply, user_message
from bot.errors import ProviderError
from bot.forge.origin import redact_urls

log = logging.getLogger(__name__)

PROVIDER = "claude-local"
# How long to wait for the killed process group to be gone. A process that left the group on
# purpose can outlive the kill and keep the output pipes open; the asker is not kept waiting
# on it past this.
KILL_GRACE = 5.0


def command(binary: Path, model: str) -> list[str]:
    """The argument list for one non-interactive, tool-less, structured run."""
    return [
        str(binary),
        "-p",
        "--output-format",
        "json",
        "--json-schema",
        json.dumps(REPLY_SCHEMA, separators=(",", ":")),
        "--system-prompt",
        INSTRUCTIONS,
        "--tools",
        "",
        "--no-session-persistence",
        "--model",
        model,
    ]


class ClaudeLocalComposer:
    """Composes by running the ``claude`` binary once per question."""

    def __init__(
        self, binary: Path, model: str, timeout: float, env: Mapping[str, str] | None = None
    ) -> None:
        # Absolute: PATH may name a directory relative to where phpbotscout started, and the
        # binary runs elsewhere.
        self._binary = binary.absolute()
        self._model = model
        self._timeout = timeout
        self._env = dict(env) if env is not None else None

    @property
    def provider(self) -> str:
        """``claude-local``."""
        return PROVIDER

    @property
    def model(self) -> str:
        """The model passed to ``--model``."""
        return self._model

    async def compose(self, question: str, passages: Sequence[Passage]) -> Answer:
        """Run the binary; see the module docstring for what its result means."""
        prompt = user_message(question, passages).encode("utf-8")
        started = time.perf_counter()
        # A directory of its own, empty and removed afterwards: claude reads the CLAUDE.md,
        # settings and hooks of the directory it runs in, and the one phpbotscout was started
        # in is nobody's promise of what those say.
        with tempfile.TemporaryDirectory(prefix="phpbotscout-claude-") as workdir:
            returncode, out, err = await self._run(prompt, Path(workdir))
        latency_ms = (time.perf_counter() - started) * 1000
        result = _parse(out)
        if returncode != 0 or result is None or result.get("is_error") is not False:
            raise ProviderError(_failure(returncode, result, err))
        usage = _usage(result.get("usage"))
        log.info("composed with claude %s in %.0f ms", self._model, latency_ms)
        subtype = result.get("subtype")
        if isinstance(subtype, str) and subtype != "success":
            raise ProviderError(
                f"claude stopped before it finished its reply ({subtype}), so there is no "
                "answer. Ask again; if it keeps happening, run 'claude -p hello' to check it."
            )
        if "structured_output" not in result:
            cut_short = unfinished(result.get("stop_reason"))
            if cut_short is not None:
                raise ProviderError(cut_short)
            raise ProviderError(unreadable("claude finished without a structured reply"))
        reply = read_reply(result["structured_output"])
        if isinstance(reply, str):
            raise ProviderError(unreadable(reply))
        return Answer(reply.text, reply.citations, reply.declined, reply.reason, usage, latency_ms)

    async def _run(self, prompt: bytes, workdir: Path) -> tuple[int | None, bytes, bytes]:
        """Run the binary in ``workdir`` with ``prompt`` on its input: exit status and output."""
        try:
            proc = await asyncio.create_subprocess_exec(
                *command(self._binary, self._model),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=self._env,
                cwd=workdir,
                # A process group of its own, so that the deadline ends everything it started:
                # a wrapper script's child (or any helper claude starts) holds the output
                # pipes, and the answer would otherwise wait for it however long it runs.
                start_new_session=True,
            )
        except OSError as exc:
            raise ProviderError(
                f"Could not run {self._binary} ({exc.strerror or exc}). Check that the claude "
                "binary is installed and executable, or set answer.provider to another provider."
            ) from None
        try:
            async with asyncio.timeout(self._timeout):
                out, err = await proc.communicate(prompt)
        except TimeoutError:
            _kill_group(proc)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(KILL_GRACE):
                    await proc.wait()
            raise ProviderError(
                f"claude did not answer within answer.timeout ({self._timeout:g} s). "
                "Ask again, or raise answer.timeout."
            ) from None
        except BaseException:
            # Cancelled: serve is stopping, or the asker's wait was given up. Nobody will read
            # the answer, and the group would otherwise run on until it finished by itself.
            _kill_group(proc)
            raise
        return proc.returncode, out, err

    async def aclose(self) -> None:
        """Nothing to release: each question runs its own process."""


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    # The group is the binary's pid: it started the group, and the id stays taken while any
    # process is left in it, so this reaches nothing else.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def _parse(out: bytes) -> dict[str, Any] | None:
    try:
        data = json.loads(out.decode("utf-8", errors="replace"))
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _usage(data: object) -> Usage:
    if not isinstance(data, dict):
        return Usage()
    tokens = [data.get("input_tokens"), data.get("output_tokens")]
    ints = [t if isinstance(t, int) and not isinstance(t, bool) else None for t in tokens]
    return Usage(ints[0], ints[1])


def _ended(code: int | None) -> str:
    """How the run ended: ``exited with status 2``, or ``was killed by signal 9 (SIGKILL)``."""
    if code is None or code >= 0:
        return f"exited with status {code}"
    # A process ended by a signal has the signal's number, negated, as its status: "status -9"
    # tells the asker nothing, where SIGKILL points at the out-of-memory killer or a person.
    try:
        name = f" ({signal.Signals(-code).name})"
    except ValueError:
        name = ""
    return f"was killed by signal {-code}{name}"


def _failure(code: int | None, result: dict[str, Any] | None, stderr: bytes) -> str:
    # What claude printed can name the ANTHROPIC_BASE_URL it was given, password and all. It is
    # redacted before it is cut short: a cut inside the URL would leave a password unrecognised.
    if result is None:
        lines = stderr.decode("utf-8", errors="replace").strip().splitlines()
        detail = f": {redact_urls(lines[-1])[:200]}" if lines else ""
        return (
            f"claude {_ended(code)} without a result{detail}. Run "
            "'claude -p hello' to check that it is installed and signed in."
        )
    said = str(result.get("result") or "; ".join(map(str, result.get("errors") or [])))
    said = redact_urls(said)[:200]
    return (
        f"claude reported an error (exit status {code}, {result.get('subtype', 'no subtype')})"
        + (f": {said}" if said else "")
        + ". Run 'claude -p hello' to check that it is installed and signed in."
    )
