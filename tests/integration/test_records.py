"""Every outcome is recorded; votes are one per voter and changeable; gaps lists declines."""

import asyncio
import shutil
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from bot.answer.composer import Answer, Passage, Usage
from bot.engine import Engine
from bot.errors import Busy, ProviderError, UsageError
from bot.index import records
from bot.index.store import MIGRATIONS_DIR, Store, now
from tests.answering import answer_config, make_estate, number_of

QUESTION = "What frobnication depth should I set?"


@dataclass
class ScriptedComposer:
    """An in-memory fake of our own Composer protocol: queued drafts, a call history."""

    drafts: list[Answer | Exception] = field(default_factory=list)
    calls: list[tuple[str, int]] = field(default_factory=list)
    provider: str = "scripted"
    model: str = "scripted-1"
    closed: bool = False
    slow: bool = False  # each draft arrives in a later second than it was asked for
    while_composing: Callable[[], None] | None = None  # what happens while the model works
    asked_at: list[str] = field(default_factory=list)  # when each draft was asked for

    async def compose(self, question: str, passages: list[Passage]) -> Answer:
        self.calls.append((question, len(passages)))
        self.asked_at.append(now())
        while self.slow and now() == self.asked_at[-1]:
            await asyncio.sleep(0.05)  # a model taking its time: the clock's next second
        if self.while_composing is not None:
            self.while_composing()
        draft = self.drafts.pop(0)
        if isinstance(draft, Exception):
            raise draft
        return draft

    async def aclose(self) -> None:
        self.closed = True


@pytest.fixture
async def setup(tmp_path):
    estate = make_estate(tmp_path / "estate")
    config = answer_config(tmp_path, estate, "none")
    composer = ScriptedComposer()
    engine = await Engine.open(config, composer=composer)
    await engine.refresh()
    yield engine, composer
    await engine.close()
    assert composer.closed


async def rows(engine, sql):
    return [tuple(r) for r in await engine.store.fetchall(sql)]


async def test_each_outcome_is_recorded_with_its_passages_citations_and_usage(setup):
    engine, composer = setup
    n = number_of((await engine.retrieve(QUESTION)).results, "Tuning the frobnicator")
    composer.drafts = [
        Answer("Set `frobnication.depth` to seven.", (n,), False, "", Usage(100, 20), 42.0),
        Answer("", (), True, "Nothing about colours.", Usage(90, 10), 30.0),
        Answer("Set `depth.max` to 7.", (n,), False, "", Usage(95, 12), 31.0),
        ProviderError("The Anthropic API answered HTTP 529 overloaded_error."),
    ]
    answered = await engine.ask(QUESTION)
    declined = await engine.ask("Which colours can a widget be?")
    ungrounded = await engine.ask("How deep can frobnication go?")
    with pytest.raises(ProviderError):
        await engine.ask("Is frobnication slow?")
    nothing = await engine.ask("zyzzyva quux")
    assert len(composer.calls) == 4  # nothing_matched asked no model

    assert [o.kind for o in (answered, declined, ungrounded, nothing)] == [
        "answered", "declined", "declined", "declined"
    ]  # fmt: skip
    assert answered.answer_id is not None and answered.question_id is not None
    got = await rows(
        engine,
        "SELECT q.question, a.outcome, a.decline_kind, a.answer, a.draft, a.provider, a.model,"
        " a.input_tokens, a.output_tokens, a.compose_ms IS NOT NULL, a.total_ms > 0"
        " FROM answers a JOIN questions q ON q.id = a.question_id ORDER BY a.id",
    )
    assert got == [
        (QUESTION, "answered", None, "Set `frobnication.depth` to seven.", None, "scripted",
         "scripted-1", 100, 20, 1, 1),
        ("Which colours can a widget be?", "declined", "composer_declined", None, None,
         "scripted", "scripted-1", 90, 10, 1, 1),
        ("How deep can frobnication go?", "declined", "ungrounded", None,
         "Set `depth.max` to 7.", "scripted", "scripted-1", 95, 12, 1, 1),
        ("Is frobnication slow?", "error", None, None, None, "scripted", "scripted-1", None,
         None, 0, 1),
        ("zyzzyva quux", "declined", "nothing_matched", None, None, "scripted", None, None,
         None, 0, 1),
    ]  # fmt: skip
    passages = await rows(
        engine,
        f"SELECT n, source, heading, url FROM question_passages"
        f" WHERE question_id = {answered.question_id} ORDER BY n",
    )
    assert [p[0] for p in passages] == list(range(1, len(answered.passages) + 1))
    assert passages[n - 1][2] == "Tuning the frobnicator"
    assert await rows(
        engine, f"SELECT n FROM citations WHERE answer_id = {answered.answer_id}"
    ) == [(n,)]


async def test_an_index_from_before_busy_was_an_outcome_keeps_its_record_and_records_busy(
    tmp_path,
):
    # The index as the version before the 'busy' outcome made it: every migration up to it.
    # The page index comes with it, as this version's writer and retriever need it; it touches
    # no table of the record, and the migration that follows applies after it all the same.
    earlier = tmp_path / "earlier-migrations"
    earlier.mkdir()
    for script in sorted(MIGRATIONS_DIR.glob("*.sql")):
        if script.stem < "0007" or script.stem == "0009_pages":
            shutil.copy(script, earlier)
    config = answer_config(tmp_path, make_estate(tmp_path / "estate"), "none")
    composer = ScriptedComposer()
    engine = Engine(config, await Store.open(config.index_path, earlier), composer=composer)
    await engine.refresh()
    composer.drafts = [Answer("Set `frobnication.depth` to seven.", (1,), False, "")]
    answered = await engine.ask(QUESTION)
    assert answered.answer_id is not None
    await engine.vote(answered.answer_id, "user-1", True)
    await engine.close()

    composer = ScriptedComposer(drafts=[Busy("I'm busy. Ask again in a minute.")])
    async with await Engine.open(config, composer=composer) as engine:
        assert await rows(engine, "SELECT id, outcome FROM answers") == [
            (answered.answer_id, "answered")
        ]
        assert await rows(engine, "SELECT answer_id, n FROM citations") == [(answered.answer_id, 1)]
        assert await rows(engine, "SELECT answer_id, voter, helpful FROM votes") == [
            (answered.answer_id, "user-1", 1)
        ]
        # The rebuilt citations and votes still belong to the answers table.
        for table in ("citations", "votes"):
            keys = await rows(engine, f"SELECT \"table\" FROM pragma_foreign_key_list('{table}')")
            assert ("answers",) in keys
        assert await rows(engine, "PRAGMA foreign_key_check") == []
        with pytest.raises(Busy):
            await engine.ask("Is frobnication slow?")
        assert await rows(engine, "SELECT outcome, model FROM answers ORDER BY id") == [
            ("answered", "scripted-1"),
            ("busy", None),
        ]


async def test_a_citation_outside_the_passages_cannot_be_recorded(setup):
    engine, composer = setup
    composer.drafts = [Answer("Set `frobnication.depth` to seven.", (1,), False, "")]
    outcome = await engine.ask(QUESTION)
    with pytest.raises(sqlite3.IntegrityError):
        async with engine.store.write() as conn:
            await conn.execute(
                "INSERT INTO citations (answer_id, question_id, n, position) VALUES (?, ?, 99, 1)",
                (outcome.answer_id, outcome.question_id),
            )


async def test_votes_are_one_per_voter_and_can_change(setup):
    engine, composer = setup
    composer.drafts = [Answer("Set `frobnication.depth` to seven.", (1,), False, "")]
    outcome = await engine.ask(QUESTION)
    assert outcome.answer_id is not None
    await engine.vote(outcome.answer_id, "user-1", True)
    await engine.vote(outcome.answer_id, "user-2", True)
    assert await records.vote_counts(engine.store, outcome.answer_id) == (2, 0)
    await engine.vote(outcome.answer_id, "user-1", False)
    assert await records.vote_counts(engine.store, outcome.answer_id) == (1, 1)
    assert len(await rows(engine, "SELECT * FROM votes")) == 2
    with pytest.raises(UsageError, match="no recorded answer 999"):
        await engine.vote(999, "user-1", True)


async def test_gaps_lists_declines_only_newest_first_and_since(setup):
    engine, composer = setup
    composer.drafts = [
        Answer("Set `frobnication.depth` to seven.", (1,), False, "", Usage(), 1.0),
        Answer("", (), True, "Colours are not covered.", Usage(), 1.0),
        Answer("", (), True, "Colours are still not covered.", Usage(), 1.0),
    ]
    await engine.ask(QUESTION)
    await engine.ask("Which colours can a widget be?")
    await engine.ask("zyzzyva quux")
    await engine.ask("which colours can a widget be")
    groups = await engine.gaps()
    assert [(g.kind, g.declines) for g in groups] == [
        ("composer_declined", 2),
        ("nothing_matched", 1),
    ]
    [colours] = groups[0].gaps
    assert (colours.times, colours.reason) == (2, "Colours are still not covered.")
    assert colours.question == "which colours can a widget be"
    asked = await rows(
        engine, "SELECT id, asked_at FROM questions WHERE question LIKE '%colours%' ORDER BY id"
    )
    assert colours.question_ids == (asked[1][0], asked[0][0])
    assert (colours.last_asked, colours.first_asked) == (asked[1][1], asked[0][1])
    assert await engine.gaps("2999-01-01T00:00:00+00:00") == []


async def test_a_question_is_dated_when_it_arrived_not_when_the_model_replied(setup):
    engine, composer = setup
    composer.slow = True
    composer.drafts = [
        Answer("", (), True, "Colours are not covered.", Usage(), 1.0),
        ProviderError("The model is overloaded."),
    ]
    await engine.ask("Which colours can a widget be?")
    with pytest.raises(ProviderError):
        await engine.ask("Which colours can a widget be?")
    recorded = await rows(
        engine,
        "SELECT q.asked_at, a.answered_at FROM questions q JOIN answers a ON a.question_id = q.id"
        " ORDER BY q.id",
    )
    for (asked_at, answered_at), composing in zip(recorded, composer.asked_at, strict=True):
        assert asked_at <= composing < answered_at, (asked_at, composing, answered_at)
    [gap] = (await engine.gaps())[0].gaps
    assert gap.last_asked == recorded[0][0]


async def test_an_outcome_the_index_cannot_record_is_returned_all_the_same(setup, caplog):
    engine, composer = setup
    # Another process takes the write lock while the model works, and keeps it past the wait
    # every write of the index allows (10 s).
    holder = sqlite3.connect(engine.config.index_path, isolation_level=None)
    composer.while_composing = lambda: holder.execute("BEGIN IMMEDIATE")
    composer.drafts = [
        Answer("Set `frobnication.depth` to seven.", (1,), False, "", Usage(), 1.0),
        Answer("", (), True, "Colours are not covered.", Usage(), 1.0),
    ]
    try:
        answered = await engine.ask(QUESTION)
        holder.execute("ROLLBACK")
        composer.while_composing = None
        declined = await engine.ask("Which colours can a widget be?")
    finally:
        holder.close()
    assert answered.kind == "answered" and answered.answer == "Set `frobnication.depth` to seven."
    assert (answered.question_id, answered.answer_id) == (None, None)
    assert "another process" in answered.unrecorded
    assert "a question that ended answered was not recorded" in caplog.text
    assert declined.kind == "declined" and not declined.unrecorded  # the lock is gone
    assert await rows(engine, "SELECT question FROM questions") == [
        ("Which colours can a widget be?",)
    ]


async def test_an_answer_from_a_source_past_its_interval_carries_a_caveat(setup):
    engine, composer = setup
    async with engine.store.write() as conn:
        await conn.execute("UPDATE sources SET refreshed_at = '2020-01-01T00:00:00+00:00'")
    composer.drafts = [Answer("Set `frobnication.depth` to seven.", (1,), False, "")]
    outcome = await engine.ask(QUESTION)
    assert outcome.kind == "answered"
    assert outcome.stale == ("widgets",)
    assert await rows(engine, "SELECT stale FROM answers") == [('["widgets"]',)]


async def test_passages_only_is_recorded_without_a_model(tmp_path):
    estate = make_estate(tmp_path / "estate")
    async with await Engine.open(answer_config(tmp_path, estate, "none")) as engine:
        await engine.refresh()
        outcome = await engine.ask(QUESTION)
        assert (outcome.kind, outcome.provider, outcome.model) == ("passages", "none", None)
        assert outcome.passages and outcome.answer is None
        assert await rows(engine, "SELECT outcome, provider, model FROM answers") == [
            ("passages", "none", None)
        ]


async def test_an_empty_or_overlong_question_is_a_usage_error_and_not_recorded(setup):
    engine, composer = setup
    with pytest.raises(UsageError, match="empty"):
        await engine.ask("   \n ")
    with pytest.raises(UsageError, match="keep it to 4000 at most"):
        await engine.ask("why " * 2000)
    assert await rows(engine, "SELECT * FROM questions") == []
    assert composer.calls == []
