"""The GitLab push webhook inside serve: a wrong token is refused, a push refreshes one source."""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.discord_bot import BotThread, ask, build_index, watched
from tests.fakes.discord import FakeDiscord
from tests.gitrepo import commit, make_repo
from tests.searchindex import damage
from tests.webhooking import SECRET, port_of, push_body, send, stalled_push, webhook_config


@pytest.fixture(scope="module")
def estate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("webhook") / "estate"
    make_repo(root / "widgets", {"README.md": "# Widgets\n\n## Installing\n\nRun the installer.\n"})
    make_repo(root / "gadgets", {"README.md": "# Gadgets\n\n## Installing\n\nUnpack the box.\n"})
    return root


@pytest.fixture(scope="module")
def running(estate: Path, discord: FakeDiscord) -> Iterator[BotThread]:
    config = webhook_config(estate.parent, estate, discord)
    build_index(config)
    bot = BotThread(config).start()
    bot.run(bot.service.refresher.settle())  # the start-up tick
    yield bot
    bot.stop()


@pytest.fixture
def bot(running: BotThread, discord: FakeDiscord) -> Iterator[BotThread]:
    with watched(running, discord, messages_sent=False) as bot:
        yield bot


def push(bot: BotThread, project: str, token: str, event: str = "Push Hook") -> tuple[int, Any]:
    return send(bot, push_body(project), token, event)


def refreshed_at(bot: BotThread) -> dict[str, str]:
    states = bot.run(bot.engine.sources())
    return {s.name: s.refreshed_at for s in states}


def test_a_wrong_token_is_refused_and_refreshes_nothing(bot, caplog):
    caplog.set_level(logging.INFO)
    runs = bot.service.refresher.runs
    status, body = push(bot, "widgets", SECRET[:-1] + "X")
    assert status == 401 and "X-Gitlab-Token" in body["error"]
    status, _ = push(bot, "widgets", "")
    assert status == 401
    bot.run(bot.service.refresher.settle())
    assert bot.service.refresher.runs == runs
    assert "wrong token" in caplog.text and SECRET not in caplog.text


def raw_push(bot: BotThread, token: bytes) -> tuple[int, bytes]:
    """A push whose token header is sent as exactly ``token``, whatever its bytes."""
    body = push_body("widgets")
    head = (
        b"POST /webhook/gitlab HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        b"X-Gitlab-Token: " + token + b"\r\nX-Gitlab-Event: Push Hook\r\n"
        b"Content-Type: application/json\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", port_of(bot)), timeout=5) as conn:
        conn.sendall(head + body)
        response = b""
        while chunk := conn.recv(65536):
            response += chunk
    status_line, _, rest = response.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


@pytest.mark.parametrize("token", [b"\xff\xfe", SECRET.encode()[:-1] + b"\xe9"])
def test_a_token_that_is_not_utf8_is_refused_like_any_wrong_token(bot, caplog, token):
    caplog.set_level(logging.INFO)
    runs = bot.service.refresher.runs
    status, body = raw_push(bot, token)
    assert status == 401, body
    assert "X-Gitlab-Token" in json.loads(body)["error"]
    bot.run(bot.service.refresher.settle())
    assert bot.service.refresher.runs == runs
    assert "wrong token" in caplog.text and "UnicodeEncodeError" not in caplog.text


def test_a_push_refreshes_just_the_pushed_source(bot, estate, discord):
    commit(
        estate / "widgets", {"docs/tuning.md": "# Tuning\n\n## Flux capacity\n\nSet flux to 9.\n"}
    )
    before = refreshed_at(bot)
    status, body = push(bot, "widgets", SECRET)
    assert (status, body) == (202, {"refreshing": "widgets"})
    bot.run(bot.service.refresher.settle())

    report = bot.service.refresher.last
    assert [(o.name, o.status) for o in report.outcomes] == [("widgets", "indexed")]
    after = refreshed_at(bot)
    assert after["gadgets"] == before["gadgets"]
    reply = ask(discord, "How do I set the flux capacity?", 1500000000000000900)
    assert reply.embeds[0]["title"].startswith("[1] widgets · docs/tuning.md — Flux capacity")


def test_a_push_naming_a_source_in_other_letter_case_refreshes_it(bot, estate, caplog):
    # GitLab's paths ignore case: a project pushes under its new spelling before the next
    # refresh has learnt a rename in case alone.
    caplog.set_level(logging.INFO, logger="bot.webhook")
    commit(estate / "gadgets", {"docs/boxes.md": "# Boxes\n\n## Cardboard\n\nRecycle it.\n"})
    status, body = push(bot, "GADGETS", SECRET)
    assert (status, body) == (202, {"refreshing": "gadgets"})
    bot.run(bot.service.refresher.settle())
    report = bot.service.refresher.last
    assert [(o.name, o.status) for o in report.outcomes] == [("gadgets", "indexed")]
    assert "refresh of gadgets queued" in caplog.text


def test_a_push_to_a_source_not_in_the_index_is_acknowledged_and_ignored(bot, caplog):
    caplog.set_level(logging.INFO, logger="bot.webhook")
    runs = bot.service.refresher.runs
    status, body = push(bot, "acme/elsewhere", SECRET)
    # 2xx: GitLab disables a hook after four failed deliveries in a row, 4xx included.
    assert status == 202 and "not an indexed source" in body["ignored"]
    assert "refreshing" not in body
    assert "'acme/elsewhere', which is not an indexed source" in caplog.text
    bot.run(bot.service.refresher.settle())
    assert bot.service.refresher.runs == runs


def test_a_body_nested_too_deep_to_read_is_refused_with_400_not_a_crash(bot):
    runs = bot.service.refresher.runs
    status, body = send(bot, b"[" * 100_000 + b"]" * 100_000)  # well inside the size limit
    assert status == 400
    assert "no project.path_with_namespace" in body["error"]
    bot.run(bot.service.refresher.settle())
    assert bot.service.refresher.runs == runs


def test_other_events_are_acknowledged_and_ignored(bot):
    status, body = push(bot, "widgets", SECRET, event="Merge Request Hook")
    assert status == 202 and "not a push event" in body["ignored"]


@pytest.fixture
def own(tmp_path: Path) -> Iterator[tuple[BotThread, FakeDiscord]]:
    """A bot of its own, with its own Discord, that a test may damage or stop."""
    estate = tmp_path / "estate"
    make_repo(estate / "widgets", {"README.md": "# Widgets\n\n## Installing\n\nRun it.\n"})
    with FakeDiscord() as discord:
        config = webhook_config(tmp_path, estate, discord)
        build_index(config)
        running = BotThread(config).start()
        try:
            running.run(running.service.refresher.settle())  # the start-up tick
            yield running, discord
        finally:
            if not running.loop.is_closed():
                running.stop()


def test_a_push_while_the_index_cannot_be_read_is_answered_503_and_the_log_says_what_to_do(
    own, caplog
):
    caplog.set_level(logging.INFO, logger="bot.webhook")
    running, discord = own
    with watched(running, discord, messages_sent=False) as bot:
        runs = bot.service.refresher.runs
        damage(bot.engine.store.path, "sources")
        status, body = push(bot, "widgets", SECRET)
        assert (status, body) == (503, {"error": "the index could not be read; see serve's log"})
        bot.run(bot.service.refresher.settle())
        assert bot.service.refresher.runs == runs
    said = caplog.text
    assert "push webhook: could not refresh widgets: The index at" in said, said
    assert "move it aside and run 'python -m bot.cli index build'" in said, said


def test_a_push_whose_body_never_arrives_does_not_hold_up_stopping(own):
    running, discord = own
    assert running.service is not None and running.service.webhook is not None
    with stalled_push(running) as conn:
        with watched(running, discord, messages_sent=False):
            running.stop()  # fails (times out after 20 s) if the sender is waited for
        assert conn.recv(1024) == b""  # the stalled request was let go of, not answered


def test_a_push_naming_sources_apart_by_letter_case_alone_refreshes_one_only_if_exact(tmp_path):
    # Local repositories on a case-sensitive filesystem: two sources, which GitLab never has.
    make_repo(tmp_path / "a" / "Tools", {"README.md": "# Tools\n\nHammers.\n"})
    make_repo(tmp_path / "b" / "tools", {"README.md": "# tools\n\nSpanners.\n"})
    both = {"sources": {"local": [str(tmp_path / "a"), str(tmp_path / "b")]}}
    with FakeDiscord() as discord:
        config = webhook_config(tmp_path, tmp_path / "a", discord, both)
        build_index(config)
        running = BotThread(config).start()
        try:
            with watched(running, discord, messages_sent=False) as bot:
                bot.run(bot.service.refresher.settle())  # the start-up tick
                runs = bot.service.refresher.runs
                status, body = push(bot, "TOOLS", SECRET)
                assert (status, body) == (
                    202,
                    {
                        "ignored": "TOOLS matches Tools, tools, which differ in letter case "
                        "alone: name one exactly"
                    },
                )
                bot.run(bot.service.refresher.settle())
                assert bot.service.refresher.runs == runs
                assert push(bot, "tools", SECRET) == (202, {"refreshing": "tools"})
                bot.run(bot.service.refresher.settle())
                assert [o.name for o in bot.service.refresher.last.outcomes] == ["tools"]
        finally:
            if not running.loop.is_closed():
                running.stop()
