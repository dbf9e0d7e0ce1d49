"""git commands that talk to the forge, run so that a stopping run can end them at once.

A clone or a fetch can take minutes (a large repository, a forge that stalls). It runs in a
thread, and a process does not end while a thread of its works, so an interrupted
``index build`` or a stopping ``serve`` would otherwise wait for it to finish. Each command
here runs in a session (and process group) of its own, so that ``stop`` reaches it together
with every process it started (``git-remote-https``, ``index-pack``, ``ssh``): SIGTERM to the
group, then, from whoever waits for it, SIGKILL to what is left. Its own session also keeps a
Ctrl-C at the terminal from reaching git behind the run's back: the run ends it, in order.
Once stopped, nothing more starts: a command asked for then raises ``GitStopped``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path


class GitStopped(Exception):
    """The run is stopping: the git command was ended part-way, or never started."""


@dataclass(frozen=True, slots=True)
class Finished:
    """How a git command ended: its status and output, and whether it ran out of time."""

    status: int
    stdout: str
    stderr: str
    timed_out: bool


class GitChildren:
    """The git commands one run has running, each in a process group of its own."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen[bytes]] = set()
        self._stopped = False

    def run(
        self,
        command: Sequence[str],
        *,
        cwd: Path | None,
        env: Mapping[str, str],
        timeout: float,
    ) -> Finished:
        """Run ``command`` to its end, or kill its group after ``timeout`` seconds.

        Raises:
            GitStopped: ``stop`` was called before it started or while it ran.
            OSError: git could not be started.
        """
        with self._lock:  # started under the lock, so that ``stop`` never misses one
            if self._stopped:
                raise GitStopped
            proc = subprocess.Popen(
                list(command),
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
            self._running.add(proc)
        timed_out = False
        try:
            try:
                out, err = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                _signal(proc, signal.SIGKILL)
                out, err = proc.communicate()
        finally:
            with self._lock:
                self._running.discard(proc)
                stopped = self._stopped
        if stopped:  # ended by ``stop``, or finished as it came: the run wants neither
            raise GitStopped
        return Finished(
            proc.returncode,
            out.decode("utf-8", errors="replace"),
            err.decode("utf-8", errors="replace"),
            timed_out,
        )

    def stop(self, *, kill: bool = False) -> int:
        """Start no more commands; end those running (SIGTERM, or SIGKILL with ``kill``).

        Returns how many were running. It does not wait for them: each ``run`` returns (with
        ``GitStopped``) once its command and everything the command started have gone.
        """
        with self._lock:
            self._stopped = True
            running = list(self._running)
        for proc in running:
            _signal(proc, signal.SIGKILL if kill else signal.SIGTERM)
        return len(running)


def _signal(proc: subprocess.Popen[bytes], signum: int) -> None:
    # The group's id is git's pid, which stays taken while any process of the group lives;
    # a group already gone is simply not there to signal.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signum)
