"""What serve runs: bounded model calls, the answer desk's shutdown, one refresh at a time."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

import aiohttp
import pytest

from bot.answer.bounded import BoundedComposer
from bot.answer.composer import Answer, Passage
from bot.answer.providers import build_composer
from bot.answer_desk import AnswerDesk
from bot.app import Service
from bot.config import RateLimit, Secret
from bot.engine import Engine
from bot.errors import Busy, DiscordError, ShuttingDown
from bot.index.store import Store
from bot.ratelimit import RateLimiter
from bot.refresh import RefreshReport
from bot.refresher import Refresher
from bot.webhook import PATH, PushWebhook
from extensions.schedule import RefreshSchedule, intervals
from tests.answering import answer_config, anthropic_env, make_estate
from tests.discord_bot import bot_config
from tests.fakes.anthropic_server import citing
from tests.fakes.discord import FakeDiscord
from tests.fakes.estate import configure, push, upstream
from tests.fakes.gitlab import FakeGitLab, Rule
from tests.gitrepo import commit, make_repo
from tests.integration.conftest import TOKEN


@dataclass
class GatedComposer:
    """An in-memory fake of our Composer protocol: each call waits until the test opens its gate."""

    gates: dict[str, asyncio.Event] = field(default_factory=dict)
    started: list[str] = field(default_factory=list)
    provider: str = "gated"
    model: str = "gated-1"

    def gate(self, question: str) -> asyncio.Event:
        return self.gates.setdefault(question, asyncio.Event())

    async def compose(self, question: str, passages: Sequence[Passage]) -> Answer:
        self.started.append(question)
        await self.gate(question).wait()
        return Answer("", (), True, "Gated fake declines.")

    async def aclose(self) -> None:
        pass


async def until(condition, timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.001)


async def test_queued_model_calls_run_in_arrival_order_never_above_the_bound():
    inner = GatedComposer()
    bounded = BoundedComposer(inner, 2, wait=5.0)
    questions = [f"q{n}" for n in range(6)]
    tasks = [asyncio.create_task(bounded.compose(q, [])) for q in questions]
    await until(lambda: bounded.in_flight == 2 and bounded.waiting == 4)
    assert inner.started == ["q0", "q1"]
    for q in questions:
        inner.gate(q).set()
        await asyncio.sleep(0)
    await asyncio.gather(*tasks)
    assert inner.started == questions and bounded.peak == 2 and bounded.in_flight == 0


TUNING = "Tuning the frobnicator"


async def test_a_question_that_waits_too_long_for_the_model_is_busy_not_an_error_or_gap(
    tmp_path, fake_anthropic
):
    estate = make_estate(tmp_path / "estate")
    config = answer_config(tmp_path, estate, "anthropic", env=anthropic_env(fake_anthropic.url))
    # The real provider against a model that answers only when the test says so, one call at
    # a time, and a moment's wait allowed in the queue.
    composer = build_composer(config)
    assert composer is not None
    bounded = BoundedComposer(composer, 1, wait=0.05)
    engine = await Engine.open(config, composer=bounded)
    try:
        assert not (await engine.refresh()).failed
        fake_anthropic.script(citing("Set `frobnication.depth` to seven.", TUNING))
        fake_anthropic.hold()
        first = asyncio.create_task(engine.ask("What frobnication depth should I set?"))
        await until(lambda: len(fake_anthropic.received) == 1)
        # The slot stays taken until the release below, so this one can only be turned away.
        with pytest.raises(Busy, match=r"waited 0\.05 s .* Ask again in a minute") as caught:
            await engine.ask("How do I install widgets?")
        assert bounded.waiting == 0 and len(fake_anthropic.received) == 1
        fake_anthropic.release()
        assert (await first).kind == "answered"
        rows = await engine.store.fetchall(
            "SELECT q.question, a.outcome, a.reason, a.provider FROM answers a"
            " JOIN questions q ON q.id = a.question_id ORDER BY a.id"
        )
        assert [tuple(r) for r in rows] == [
            ("How do I install widgets?", "busy", str(caught.value), "anthropic"),
            ("What frobnication depth should I set?", "answered", None, "anthropic"),
        ]
        assert await engine.gaps() == []
    finally:
        await engine.close()


@pytest.fixture
async def desk_and_composer(tmp_path):
    estate = make_estate(tmp_path / "estate")
    config = answer_config(tmp_path, estate, "none")
    composer = GatedComposer()
    engine = Engine(
        config,
        await Store.open(config.index_path),
        composer=BoundedComposer(composer, 1, wait=5.0),
    )
    await engine.refresh()
    desk = AnswerDesk(engine, RateLimiter(RateLimit(10, 60)))
    yield desk, composer
    await engine.close()


async def asking(desk: AnswerDesk, question: str, user: str = "ann"):
    async with desk.visit(user) as visit:
        assert visit.admitted
        return await desk.ask(question)


async def test_drain_lets_answers_in_flight_finish(desk_and_composer):
    desk, composer = desk_and_composer
    task = asyncio.create_task(asking(desk, "How do I tune the frobnicator?"))
    await until(lambda: composer.started)
    drained = asyncio.create_task(desk.drain(grace=5))
    await asyncio.sleep(0)
    with pytest.raises(ShuttingDown):  # doors are closed to newcomers at once
        async with desk.visit("bob"):
            pass
    composer.gate("How do I tune the frobnicator?").set()
    outcome = await task
    assert outcome.kind == "declined" and await drained == 0


async def test_drain_cancels_answers_past_the_grace_and_their_askers_are_told(desk_and_composer):
    desk, composer = desk_and_composer
    slow = asyncio.create_task(asking(desk, "How do I tune the frobnicator?"))
    queued = asyncio.create_task(asking(desk, "How do I install widgets?", "bob"))
    await until(lambda: composer.started)
    assert await desk.drain(grace=0.05) == 2
    for task in (slow, queued):
        with pytest.raises(ShuttingDown, match="restarting"):
            await task


async def test_a_second_stop_signal_ends_the_grace_and_the_askers_are_told(desk_and_composer):
    desk, composer = desk_and_composer
    slow = asyncio.create_task(asking(desk, "How do I tune the frobnicator?"))
    await until(lambda: composer.started)
    drained = asyncio.create_task(desk.drain(grace=600))  # far longer than this test runs
    await until(lambda: not desk.open)
    desk.hurry()
    assert await drained == 1
    with pytest.raises(ShuttingDown, match="restarting"):
        await slow


async def test_a_closed_desk_refuses_to_ask(desk_and_composer):
    desk, _ = desk_and_composer
    await desk.drain(grace=0)
    with pytest.raises(ShuttingDown):
        await desk.ask("anything")


async def test_a_discord_address_that_fails_is_named_without_its_token(tmp_path):
    with FakeDiscord() as discord:
        # A token in the query string: hikari's own message quotes the URL it asked, too.
        extra = {"discord": {"api_url": discord.api_url + "?token=SECRET"}}
        config = bot_config(tmp_path, make_estate(tmp_path / "estate"), discord, extra=extra)
        with pytest.raises(DiscordError, match=r"Could not connect to Discord at") as caught:
            await Service.start(config)
    message = str(caught.value)
    assert f"{discord.api_url}?***: " in message and "SECRET" not in message


class CountingEngine(Engine):
    """The real engine, counting how many refreshes overlap (none may)."""

    active = 0
    overlap = 0
    calls: list[tuple[tuple[str, ...], bool]]

    async def refresh(
        self, only=(), *, force=False, due_only=False, progress=None
    ) -> RefreshReport:
        self.calls.append((tuple(only), due_only))
        CountingEngine.active += 1
        CountingEngine.overlap = max(CountingEngine.overlap, CountingEngine.active)
        try:
            await asyncio.sleep(0.01)  # hold the lock long enough for others to pile up
            return await super().refresh(only, force=force, due_only=due_only, progress=progress)
        finally:
            CountingEngine.active -= 1


@pytest.fixture
async def counting(tmp_path):
    estate = tmp_path / "estate"
    make_repo(estate / "widgets", {"README.md": "# Widgets\n\n## A\n\nText.\n"})
    make_repo(estate / "gadgets", {"README.md": "# Gadgets\n\n## B\n\nText.\n"})
    config = answer_config(
        tmp_path,
        estate,
        "none",
        extra={"sources": {"local": [str(estate)], "refresh_intervals": {"gadgets": "1s"}}},
    )
    engine = CountingEngine(config, await Store.open(config.index_path))
    engine.calls = []
    CountingEngine.active = CountingEngine.overlap = 0
    await engine.refresh()
    engine.calls.clear()
    yield engine, estate
    await engine.close()


async def test_scheduled_and_pushed_refreshes_never_overlap_and_a_queued_push_is_not_doubled(
    counting,
):
    engine, estate = counting
    refresher = Refresher(engine)
    commit(estate / "widgets", {"docs/new.md": "# New\n\n## Page\n\nNew text.\n"})
    scheduled = asyncio.create_task(refresher.run(due_only=True))
    await asyncio.sleep(0)
    assert refresher.request("widgets", "push") is True
    assert refresher.request("widgets", "push") is False  # already waiting its turn
    assert refresher.request("gadgets", "push") is True
    await scheduled
    await refresher.settle()
    assert CountingEngine.overlap == 1
    assert engine.calls == [((), True), (("widgets", "gadgets"), False)]
    assert [(o.name, o.status) for o in refresher.last.outcomes] == [
        ("gadgets", "unchanged"),
        ("widgets", "indexed"),
    ]
    assert refresher.runs == 2


async def test_closing_the_refresher_cancels_what_is_waiting(counting):
    engine, _ = counting
    refresher = Refresher(engine)
    first = asyncio.create_task(refresher.run(why="test"))
    refresher.request("widgets", "push")
    await asyncio.sleep(0)
    await refresher.close()
    with pytest.raises(asyncio.CancelledError):
        await first
    assert refresher.runs == 0 and not refresher.running


async def test_a_closed_refresher_starts_no_refresh_for_a_late_tick_or_push(counting):
    engine, _ = counting
    refresher = Refresher(engine)
    await refresher.close()
    assert await refresher.run(due_only=True, why="schedule") is None
    assert refresher.request("widgets", "push") is False
    await refresher.settle()
    assert engine.calls == [] and refresher.runs == 0


async def test_stopping_as_a_scheduled_tick_falls_due_starts_no_refresh_and_logs_no_error(
    tmp_path, caplog
):
    caplog.set_level(logging.INFO)
    with FakeDiscord() as discord:
        service = await Service.start(
            bot_config(tmp_path, make_estate(tmp_path / "estate"), discord)
        )
        # The first tick is due at start-up, and APScheduler's wakeup for it is already queued
        # on the loop; stopping before the loop turns again lands just as that tick fires.
        await service.stop(grace=0)
    assert "Running job" not in caplog.text  # APScheduler's line as it starts a job
    assert "refresh of due sources started" not in caplog.text
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert service.refresher.runs == 0 and "stopped" in caplog.messages


async def test_serve_keeps_searching_the_index_it_opened_once_the_file_is_deleted(tmp_path):
    # Its ranking helpers open the index as serve starts, not at the first question.
    with FakeDiscord() as discord:
        config = bot_config(tmp_path, make_estate(tmp_path / "estate"), discord)
        async with await Engine.open(config) as engine:
            await engine.refresh()
        service = await Service.start(config)
        try:
            config.index_path.unlink()
            found = await service.engine.retrieve("widgets")
        finally:
            await service.stop(grace=0)
    assert {p.repo for p in found.results} == {"widgets"}


async def test_a_tick_during_a_refresh_queues_one_more_and_later_ticks_join_it(counting):
    engine, _ = counting
    refresher = Refresher(engine)
    schedule = RefreshSchedule(refresher, [3600])
    async with engine.store.write():  # the refresh in progress blocks at its first write
        running = asyncio.create_task(refresher.run(due_only=True, why="first"))
        await until(lambda: refresher.running)
        queued = asyncio.create_task(schedule._tick())  # falls during it: one run to follow
        await until(lambda: refresher.due_waiting)
        await schedule._tick()  # and one more: it joins the queued run and is done at once
        assert not queued.done()
    await asyncio.gather(running, queued)
    assert refresher.runs == 2 and not refresher.due_waiting
    assert engine.calls == [((), True), ((), True)]


async def test_the_schedule_has_one_job_per_interval_and_ticks_through_the_refresher(counting):
    engine, _ = counting
    every = intervals(engine.config)
    assert every == [1.0, 6 * 3600.0]
    refresher = Refresher(engine)
    schedule = RefreshSchedule(refresher, [0.05, 0.05, 3600])
    schedule.start()
    try:
        assert sorted(seconds for _, seconds in schedule.jobs()) == [0.05, 3600]
        await until(lambda: refresher.runs >= 3)
    finally:
        schedule.shutdown()
        await refresher.close()
    assert all(call == ((), True) for call in engine.calls)  # due sources only, every time
    assert CountingEngine.overlap == 1


async def test_a_push_to_a_source_unresolved_but_answered_from_its_last_index_refreshes_it(
    tmp_path, fake: FakeGitLab
):
    upstream(fake, "acme/a", {"README.md": "# A\n\nIt does things.\n"})
    fake.feed = ["acme/a"]
    engine = await Engine.open(configure(tmp_path, fake, token=TOKEN))
    refresher = Refresher(engine)
    webhook = PushWebhook(engine, refresher, Secret("push-secret"))
    try:
        assert (await engine.refresh()).ok
        fake.feed = 404  # the feed fails for a run: acme/a is unresolved, kept as last indexed
        await engine.refresh()
        [state] = await engine.sources()
        assert (state.verdict, state.clause) == ("unresolved", "feed")
        fake.feed = ["acme/a"]  # and is back
        await webhook.start("127.0.0.1", 0)
        async with aiohttp.ClientSession() as http:
            async with http.post(
                f"http://127.0.0.1:{webhook.port}{PATH}",
                json={"object_kind": "push", "project": {"path_with_namespace": "acme/a"}},
                headers={"X-Gitlab-Token": "push-secret", "X-Gitlab-Event": "Push Hook"},
            ) as response:
                assert (response.status, await response.json()) == (202, {"refreshing": "acme/a"})
        await refresher.settle()
        [state] = await engine.sources()
        assert (state.verdict, state.clause) == ("admitted", "site")
        assert refresher.runs == 1 and refresher.last is not None and refresher.last.ok
    finally:
        await webhook.stop()
        await refresher.close()
        await engine.close()


async def push_hook(webhook: PushWebhook, project: str) -> tuple[int, object]:
    """GitLab's push event for ``project``, sent to ``webhook``: the status and the answer."""
    async with aiohttp.ClientSession() as http:
        async with http.post(
            f"http://127.0.0.1:{webhook.port}{PATH}",
            json={"object_kind": "push", "project": {"path_with_namespace": project}},
            headers={"X-Gitlab-Token": "push-secret", "X-Gitlab-Event": "Push Hook"},
        ) as response:
            return response.status, await response.json()


async def test_pushes_to_several_sources_during_a_refresh_share_one_run_and_one_listing(
    tmp_path, fake: FakeGitLab, caplog
):
    caplog.set_level(logging.INFO, logger="bot.refresher")
    names = ["acme/a", "acme/b", "acme/c"]
    for name in names:
        upstream(fake, name, {"README.md": f"# {name}\n\nIt does things.\n"})
    fake.feed = names
    engine = await Engine.open(configure(tmp_path, fake, token=TOKEN))
    refresher = Refresher(engine)
    webhook = PushWebhook(engine, refresher, Secret("push-secret"))
    try:
        assert (await engine.refresh()).ok
        for name in names:
            push(fake, name, {"docs/new.md": f"# New in {name}\n\n## Page\n\nNew text.\n"})
        await webhook.start("127.0.0.1", 0)
        fake.clear_log()
        # The first push's refresh is held in its listing of the group, under the lock.
        held = Rule(r"/groups/[^/]+/projects$", times=1, release=threading.Event())
        fake.rules = [held]
        assert await push_hook(webhook, "acme/a") == (202, {"refreshing": "acme/a"})
        assert await asyncio.to_thread(held.arrived.wait, 5)
        assert refresher.running
        for name in ["acme/b", "acme/c", "acme/b", "acme/a"]:
            assert await push_hook(webhook, name) == (202, {"refreshing": name})
        held.release.set()
        await refresher.settle()
    finally:
        await webhook.stop()
        await refresher.close()
        await engine.close()
    assert refresher.runs == 2
    # Sources are refreshed side by side, so their outcomes come in no fixed order.
    assert sorted((o.name, o.status) for o in refresher.last.outcomes) == [
        ("acme/a", "unchanged"),
        ("acme/b", "indexed"),
        ("acme/c", "indexed"),
    ]
    listings = [r for r in fake.log if r.path.endswith("/projects")]
    assert len(listings) == 2  # the held run's and the one shared by every later push
    assert "refresh of acme/b, acme/c, acme/a started (push webhook)" in caplog.messages


async def test_a_shared_run_refused_for_one_source_refreshes_the_others_alone(counting, caplog):
    caplog.set_level(logging.INFO, logger="bot.refresher")
    engine, estate = counting
    refresher = Refresher(engine)
    async with engine.store.write():  # the refresh in progress blocks at its first write
        running = asyncio.create_task(refresher.run(why="first"))
        await until(lambda: refresher.running)
        assert refresher.request("gadgets", "push") and refresher.request("widgets", "push")
        (estate / "gadgets").rename(estate.parent / "gadgets")  # gone since its push
    await running
    await refresher.settle()
    assert engine.calls[1:] == [
        (("gadgets", "widgets"), False),
        (("gadgets",), False),
        (("widgets",), False),
    ]
    assert [(o.name, o.status) for o in refresher.last.outcomes] == [("widgets", "unchanged")]
    assert "refresh of gadgets, widgets refused (push); refreshing each alone" in caplog.text
    assert "refresh of gadgets failed (push): No source called gadgets" in caplog.text


async def test_a_scheduled_refresh_reports_a_local_path_it_cannot_read_and_refreshes_the_rest(
    tmp_path, caplog
):
    estate = make_estate(tmp_path / "estate")
    unreadable = tmp_path / ("x" * 300)  # a name past NAME_MAX: looking it up fails
    extra = {"sources": {"local": [str(estate), str(unreadable)]}}
    engine = await Engine.open(answer_config(tmp_path, estate, "none", extra=extra))
    refresher = Refresher(engine)
    try:
        report = await refresher.run(due_only=True)
    finally:
        await refresher.close()
        await engine.close()
    assert report is not None and refresher.runs == 1
    assert [(o.name, o.status) for o in report.outcomes] == [("widgets", "indexed")]
    [unread] = [c for c in report.candidates if c.location == str(unreadable)]
    assert (unread.verdict.value, unread.clause) == ("unresolved", "missing")
    assert "cannot be read (File name too long)" in unread.detail
    assert "refresh of due sources failed" not in caplog.text
