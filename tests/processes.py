"""The processes a test's subject started, read from /proc (Linux), to prove none outlives it."""

from __future__ import annotations

import os
import select
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Process:
    """One process, told apart from a later one given the same pid by when it started."""

    pid: int
    started: int  # clock ticks after boot
    command: str

    def running(self) -> bool:
        """Whether it still runs: a zombie holds its pid but runs nothing."""
        found = _read(self.pid)
        return found is not None and found[1] == self.started and found[2] != "Z"

    def ends_within(self, seconds: float) -> bool:
        """Whether it has ended, or ends within ``seconds``, waited for as an event.

        A SIGKILL just sent to it is delivered but not yet acted on: the process is a moment
        from gone, and a look at once could still find it running.
        """
        try:
            handle = os.pidfd_open(self.pid)
        except ProcessLookupError:
            return True
        try:
            if self.running():  # the pid still the same process, now that it is held
                select.select([handle], [], [], seconds)
        finally:
            os.close(handle)
        return not self.running()


def _read(pid: int) -> tuple[int, int, str] | None:
    """Its parent, its start time and its state, or ``None`` once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = stat.rsplit(")", 1)[1].split()  # the name, in brackets, may hold spaces
    return int(fields[1]), int(fields[19]), fields[0]


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except (FileNotFoundError, ProcessLookupError):
        return ""


def process(pid: int) -> Process | None:
    """The process running as ``pid`` now, if any."""
    found = _read(pid)
    return None if found is None else Process(pid, found[1], _command(pid))


def descendants(pid: int) -> list[Process]:
    """Every process ``pid`` started, and every process those started, as they are now."""
    parents: dict[int, list[int]] = {}
    started: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (found := _read(int(entry.name))) is not None:
            parents.setdefault(found[0], []).append(int(entry.name))
            started[int(entry.name)] = found[1]
    found_pids: list[int] = []
    todo = [pid]
    while todo:
        children = parents.get(todo.pop(), [])
        found_pids.extend(children)
        todo.extend(children)
    return [Process(p, started[p], _command(p)) for p in found_pids]
