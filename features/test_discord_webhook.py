"""Steps for the push webhook, sent to the real bot serving it beside the fake Discord."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from features.conftest import World
from tests.discord_bot import BotThread, HeldWrite, build_index, wait_for
from tests.fakes.discord import FakeDiscord
from tests.gitrepo import make_repo
from tests.searchindex import damage
from tests.webhooking import push_body, send, stalled_push, webhook_config

scenarios("discord_webhook.feature")


@dataclass
class Hook:
    """The bot serving the webhook, and what GitLab was last answered."""

    bot: BotThread
    runs: int = 0
    status: int = 0
    body: Any = None
    stalled: socket.socket | None = None  # a sender that stopped before its body
    held: HeldWrite | None = None  # the index's write transaction, holding a refresh up
    refreshing: Future[Any] | None = None  # the refresh it holds up
    stopped: bool = False


@pytest.fixture
def hook(world: World) -> Iterator[Hook]:
    make_repo(world.estate / "widgets", {"README.md": "# Widgets\n\n## Installing\n\nRun it.\n"})
    make_repo(world.estate / "gadgets", {"README.md": "# Gadgets\n\n## Unpacking\n\nOpen it.\n"})
    with FakeDiscord() as discord:
        # The repositories themselves, not their directory: gone, one is reported unresolved.
        local = [str(world.estate / "widgets"), str(world.estate / "gadgets")]
        config = webhook_config(world.root, world.estate, discord, {"sources": {"local": local}})
        build_index(config)
        bot = BotThread(config).start()
        hook = Hook(bot)
        try:
            bot.run(bot.service.refresher.settle())  # the start-up tick
            hook.runs = bot.service.refresher.runs
            yield hook
            problems = bot.take_problems()
            assert not problems, problems
        finally:
            if hook.held is not None:
                hook.held.release()
            if hook.stalled is not None:
                hook.stalled.close()
            if not bot.loop.is_closed():
                bot.stop()


@given(parsers.parse('the bot serves the push webhook with "{name}" indexed'))
def serving(hook: Hook, name: str) -> None:
    assert name in {s.name for s in hook.bot.run(hook.bot.engine.sources())}


@given("the index file has been damaged")
def index_damaged(hook: Hook) -> None:
    damage(hook.bot.engine.store.path, "sources")


@given(
    parsers.parse(
        '"{name}" could not be found at the last refresh and is answered from its last index'
    )
)
def source_unresolved(world: World, hook: Hook, name: str) -> None:
    assert hook.bot.service is not None
    (world.estate / name).rename(world.root / name)
    hook.bot.run(hook.bot.service.refresher.run(why="test"))
    state = next(s for s in hook.bot.run(hook.bot.engine.sources()) if s.name == name)
    assert state.verdict == "unresolved"
    assert hook.bot.run(hook.bot.engine.retrieve("install widgets")).results
    hook.runs = hook.bot.service.refresher.runs


@given(parsers.parse('"{name}" is indexed too'))
def also_indexed(hook: Hook, name: str) -> None:
    assert name in {s.name for s in hook.bot.run(hook.bot.engine.sources())}


@given("a scheduled refresh is in progress")
def refresh_in_progress(hook: Hook, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bot.refresher")
    assert hook.bot.service is not None
    refresher = hook.bot.service.refresher
    hook.held = HeldWrite(hook.bot)  # the refresh waits at its first write, the lock taken
    run = refresher.run(due_only=True, why="schedule")
    hook.refreshing = asyncio.run_coroutine_threadsafe(run, hook.bot.loop)
    wait_for(lambda: refresher.running)


@when("the refresh in progress finishes")
def refresh_finishes(hook: Hook) -> None:
    assert hook.held is not None and hook.refreshing is not None
    hook.held.release()
    hook.held = None
    hook.refreshing.result(20)


@then(parsers.parse('one more refresh ran, of "{first}" and "{second}"'))
def one_more_refresh(hook: Hook, first: str, second: str, caplog: pytest.LogCaptureFixture) -> None:
    assert hook.bot.service is not None
    refresher = hook.bot.service.refresher
    hook.bot.run(refresher.settle())
    assert refresher.runs == hook.runs + 2  # the scheduled refresh, and one for every push
    assert refresher.last is not None
    assert sorted(o.name for o in refresher.last.outcomes) == sorted([first, second])
    assert len([m for m in caplog.messages if m.endswith("started (push webhook)")]) == 1


@given(parsers.parse('"{name}" is back where it was'))
def source_back(world: World, name: str) -> None:
    (world.root / name).rename(world.estate / name)


@when(parsers.parse('GitLab sends a push to "{project}"'))
def gitlab_pushes(hook: Hook, project: str) -> None:
    hook.status, hook.body = send(hook.bot, push_body(project))


@when("GitLab's token comes with a body of lists nested 100,000 deep")
def nested_body(hook: Hook) -> None:
    hook.status, hook.body = send(hook.bot, b"[" * 100_000 + b"]" * 100_000)


@given("a sender has begun a push and stalled before its body")
def stalled_sender(hook: Hook) -> None:
    hook.stalled = stalled_push(hook.bot)


@when("serve is told to stop")
def told_to_stop(hook: Hook) -> None:
    problems = hook.bot.take_problems()
    hook.bot.stop()  # times out after 20 s if it waits for the stalled sender
    hook.stopped = True
    assert not problems + hook.bot.take_problems()


@then("serve stops without waiting for the sender, whose connection is closed unanswered")
def stopped_without_waiting(hook: Hook) -> None:
    assert hook.stopped and hook.stalled is not None
    assert hook.stalled.recv(1024) == b""


@then(parsers.parse('GitLab is answered {status:d} with "{error}"'))
def answered(hook: Hook, status: int, error: str) -> None:
    assert (hook.status, hook.body) == (status, {"error": error})


@then(parsers.parse('GitLab is answered 202, ignored because "{why}"'))
def answered_ignored(hook: Hook, why: str) -> None:
    assert (hook.status, hook.body) == (202, {"ignored": why})


@then("nothing was refreshed")
def nothing_refreshed(hook: Hook) -> None:
    assert hook.bot.service is not None
    hook.bot.run(hook.bot.service.refresher.settle())
    assert hook.bot.service.refresher.runs == hook.runs


@then(parsers.parse('GitLab is answered 202, refreshing "{name}"'))
def answered_refreshing(hook: Hook, name: str) -> None:
    assert (hook.status, hook.body) == (202, {"refreshing": name})


@then(parsers.parse('"{name}" is indexed again'))
def indexed_again(hook: Hook, name: str) -> None:
    assert hook.bot.service is not None
    hook.bot.run(hook.bot.service.refresher.settle())
    assert hook.bot.service.refresher.runs == hook.runs + 1
    state = next(s for s in hook.bot.run(hook.bot.engine.sources()) if s.name == name)
    assert state.verdict == "admitted"
