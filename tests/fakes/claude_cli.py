"""A fake ``claude`` executable: a small Python script put first on PATH by a test.

It accepts the flags phpbotscout passes, records each call (argv, standard input, environment,
and the directory it runs in with what that holds) in ``calls.jsonl`` beside itself, and then
behaves as ``behaviour.json`` beside it says: print a result object and exit with a status
(or be killed by a signal, as the out-of-memory killer would), optionally after a delay. The
delay may be spent in a child process that shares its output, as when ``claude`` is a wrapper
script that runs the real binary. Before the delay it writes its pid (and its child's) to
``pids.jsonl``, so a test can tell when the processes it started are gone. The result objects
have the real CLI's keys.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

SCRIPT = r"""#!{python}
import json, os, subprocess, sys, time
from pathlib import Path

here = Path(__file__).resolve().parent
args = sys.argv[1:]
known = {{"-p", "--output-format", "--json-schema", "--system-prompt", "--tools",
         "--no-session-persistence", "--model"}}
takes_value = {{"--output-format", "--json-schema", "--system-prompt", "--tools", "--model"}}
i = 0
while i < len(args):
    if args[i] not in known:
        print(f"error: unknown option '{{args[i]}}'", file=sys.stderr)
        sys.exit(1)
    i += 2 if args[i] in takes_value else 1
prompt = sys.stdin.read()
with open(here / "calls.jsonl", "a", encoding="utf-8") as calls:
    seen = {{"argv": args, "stdin": prompt, "env": dict(os.environ), "cwd": os.getcwd(),
            "cwd_files": sorted(os.listdir())}}
    calls.write(json.dumps(seen) + "\n")
behaviour = json.loads((here / "behaviour.json").read_text())
pids = [os.getpid()]
if behaviour.get("in_child"):
    sleep = f"import time; time.sleep({{behaviour['delay']}})"
    child = subprocess.Popen([sys.executable, "-c", sleep])
    pids.append(child.pid)
with open(here / "pids.jsonl", "a", encoding="utf-8") as running:
    running.write(json.dumps(pids) + "\n")
if behaviour.get("in_child"):
    child.wait()
else:
    time.sleep(behaviour.get("delay", 0))
if behaviour.get("stderr"):
    print(behaviour["stderr"], file=sys.stderr)
if behaviour.get("stdout") is not None:
    sys.stdout.write(behaviour["stdout"])
if behaviour.get("signal"):
    sys.stdout.flush()
    os.kill(os.getpid(), behaviour["signal"])
sys.exit(behaviour.get("exit", 0))
"""


def result(
    structured: Any = None,
    *,
    is_error: bool = False,
    subtype: str = "success",
    text: str = "",
    with_structured: bool = True,
) -> dict[str, Any]:
    """A ``--output-format json`` result object as the real CLI prints it."""
    data: dict[str, Any] = {
        "type": "result",
        "subtype": subtype,
        "is_error": is_error,
        "num_turns": 2,
        "result": json.dumps(structured) if structured is not None else text,
        "session_id": "4f39511d-0000-0000-0000-000000000000",
        "stop_reason": "tool_use",
        "duration_ms": 301,
        "duration_api_ms": 55,
        "total_cost_usd": 0.000046,
        "api_error_status": None,
        "usage": {"input_tokens": 900, "output_tokens": 70},
    }
    if with_structured and structured is not None:
        data["structured_output"] = structured
    return data


class FakeClaude:
    """The fake binary in ``directory``; put ``directory`` first on PATH to use it."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / "claude"
        self.path.write_text(SCRIPT.format(python=sys.executable), encoding="utf-8")
        self.path.chmod(0o755)
        self.behave(exit=1, stderr="no behaviour scripted")

    def behave(
        self,
        *,
        stdout: dict[str, Any] | str | None = None,
        exit: int = 0,
        stderr: str = "",
        delay: float = 0.0,
        in_child: bool = False,
        killed_by: int = 0,
    ) -> None:
        text = json.dumps(stdout) if isinstance(stdout, dict) else stdout
        behaviour = {
            "stdout": text,
            "exit": exit,
            "stderr": stderr,
            "delay": delay,
            "in_child": in_child,
            "signal": killed_by,
        }
        (self.directory / "behaviour.json").write_text(json.dumps(behaviour), encoding="utf-8")

    def pids(self) -> list[int]:
        """The pids of every run so far that reached its delay, children included."""
        log = self.directory / "pids.jsonl"
        if not log.exists():
            return []
        lines = log.read_text(encoding="utf-8").splitlines()
        return [pid for line in lines for pid in json.loads(line)]

    def calls(self) -> list[dict[str, Any]]:
        log = self.directory / "calls.jsonl"
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
