"""A fake ``ssh`` on PATH: it serves the fake forge's repositories, or refuses as ssh does.

Clones over SSH run ``ssh`` by name (``GIT_SSH_COMMAND``), so an executable of that name put
first on PATH stands in for the client and the server at once. Serving, it runs the real
``git-upload-pack`` locally, the way sshd would. Refusing, it writes what OpenSSH writes to
standard error when it gives up (its lines end in CR LF) and exits 255, as ssh does; git then
adds its own "Could not read from remote repository" as it would.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

# What OpenSSH says, word for word, when the server accepts none of the client's keys ...
KEY_REFUSED = "git@127.0.0.1: Permission denied (publickey).\r\n"
# ... when strict checking finds no pinned key for the host ...
HOST_KEY_UNKNOWN = (
    "No ED25519 host key is known for 127.0.0.1 and you have requested strict checking.\r\n"
    "Host key verification failed.\r\n"
)
# ... and when the host sends another key than the one pinned for it.
HOST_KEY_CHANGED = (
    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\r\n"
    "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\r\n"
    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\r\n"
    "IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!\r\n"
    "Add correct host key in known_hosts to get rid of this message.\r\n"
    "Offending ED25519 key in known_hosts:1\r\n"
    "Host key for 127.0.0.1 has changed and you have requested strict checking.\r\n"
    "Host key verification failed.\r\n"
)

_SERVING = """#!/bin/sh
# Record how we were called, then serve the repository the way sshd would.
printf '%s\\n' "$@" >> {log}
for last; do :; done
cd {root} && exec sh -c "$last"
"""

_REFUSING = """#!/bin/sh
# Record how we were called, then give up the way ssh does.
printf '%s\\n' "$@" >> {log}
printf '%s' {said} >&2
exit 255
"""


def _install(bin_dir: Path, script: str, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir.mkdir(parents=True, exist_ok=True)
    ssh = bin_dir / "ssh"
    ssh.write_text(script)
    ssh.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


def serving_ssh(bin_dir: Path, log: Path, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Put an ``ssh`` first on PATH that serves the repositories under ``root``."""
    script = _SERVING.format(log=shlex.quote(str(log)), root=shlex.quote(str(root)))
    _install(bin_dir, script, monkeypatch)


def refusing_ssh(bin_dir: Path, log: Path, said: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Put an ``ssh`` first on PATH that writes ``said`` to stderr and exits 255."""
    script = _REFUSING.format(log=shlex.quote(str(log)), said=shlex.quote(said))
    _install(bin_dir, script, monkeypatch)
