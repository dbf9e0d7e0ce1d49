"""git commands a stopping run ends at once, with every process they started."""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bot.git_process import GitChildren, GitStopped
from tests.processes import descendants, process


def _started_then_waiting(fifo: Path) -> list[str]:
    # Ignoring SIGTERM, as a child stuck in the kernel might; its own child ignores it too.
    script = f'trap "" TERM; sleep 1000 >/dev/null 2>&1 & echo started > "{fifo}"; wait'
    return ["sh", "-c", script]


def test_a_command_deaf_to_sigterm_is_killed_with_what_it_started(tmp_path):
    fifo = tmp_path / "started"
    os.mkfifo(fifo)
    children = GitChildren()
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(
            children.run, _started_then_waiting(fifo), cwd=None, env=os.environ, timeout=60
        )
        assert fifo.read_text() == "started\n"  # opened once the command writes to it
        started = descendants(os.getpid())
        # The shell and the child it forked for `sleep`: forked before the shell wrote, but it
        # may not have become `sleep` yet, so it is counted, not named.
        assert len(started) >= 2, started

        assert children.stop() == 1
        assert children.stop(kill=True) == 1  # SIGTERM was not enough
        with pytest.raises(GitStopped):
            running.result(timeout=30)
    assert [p for p in started if not p.ends_within(10)] == []


def test_nothing_starts_once_stopped(tmp_path):
    children = GitChildren()
    assert children.stop() == 0
    marker = tmp_path / "ran"
    with pytest.raises(GitStopped):
        children.run(["touch", str(marker)], cwd=None, env=os.environ, timeout=60)
    assert not marker.exists()


def test_a_command_out_of_time_is_killed_with_what_it_started():
    children = GitChildren()
    # A shell, not a Python, starts the grandchild: it has printed its pid in milliseconds,
    # so the time limit falls after that even on a loaded machine (a Python's start-up took
    # longer than half a second there, and the limit ended it before it had printed).
    # The grandchild holds neither pipe, so a group left running shows as a live process here
    # rather than as a wait for the pipes to close.
    script = "sleep 1000 >/dev/null 2>&1 & echo $!; wait"
    ran = children.run(["sh", "-c", script], cwd=None, env=os.environ, timeout=3)
    assert ran.timed_out
    assert ran.stdout.strip().isdigit(), f"the grandchild's pid was not printed: {ran.stdout!r}"
    left = process(int(ran.stdout))
    assert left is None or left.ends_within(10)


def test_each_command_runs_in_a_process_group_of_its_own():
    # So that a Ctrl-C at the terminal reaches the run, which ends git in order, not git.
    script = "import os; print(os.getpgid(0) == os.getpid() != os.getpgid(os.getppid()))"
    ran = GitChildren().run([sys.executable, "-c", script], cwd=None, env=os.environ, timeout=60)
    assert (ran.status, ran.stdout) == (0, "True\n")
