"""Steps for the slash commands, run against the real bot and the fake Discord."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from bot.index import writer
from tests.answering import make_estate
from tests.discord_bot import BotThread, HeldWrite, bot_config, build_index, wait_for
from tests.fakes.anthropic_server import FakeAnthropic, citing, tool_call
from tests.fakes.discord import EPHEMERAL, FakeDiscord, Interaction, Reply
from tests.fakes.gitlab import FakeGitLab
from tests.gitrepo import make_repo

scenarios("discord.feature")

PEOPLE = itertools.count(1500000000000000700)
RIGHT_TO_LEFT_OVERRIDE = "\u202e"
DIRECTION_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


@pytest.fixture(scope="module")
def running(
    tmp_path_factory: pytest.TempPathFactory, discord: FakeDiscord, _anthropic_server: FakeAnthropic
) -> Iterator[BotThread]:
    root = tmp_path_factory.mktemp("discord-feature")
    estate = make_estate(root / "estate")
    make_repo(estate / "drafts", {"README.md": "# Drafts\n"})
    # A GitLab group with no project yet, so that a scenario can say its listing failed.
    with FakeGitLab(root / "upstream") as forge:
        forge.feed = ["acme/planned"]  # an empty feed is taken for a broken one
        extra = {
            "sources": {"exclude": ["drafts"]},
            "gitlab": {"group": forge.group, "url": {"api": forge.api}},
            "index": {"feed": {"url": f"{forge.url}/feed.json"}},
        }
        config = bot_config(root, estate, discord, anthropic_url=_anthropic_server.url, extra=extra)
        build_index(config)
        bot = BotThread(config).start()
        bot.run(bot.service.refresher.settle())
        yield bot
        bot.stop()


@dataclass
class Chat:
    """What a scenario has done in Discord so far."""

    discord: FakeDiscord
    bot: BotThread
    interactions: list[Interaction] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)
    reader: int = 0
    refresh: HeldWrite | None = None
    pressed: Interaction | None = None
    held: list[Interaction] = field(default_factory=list)  # asks the model has not answered

    def run(self, command: str, user: int, **options: str) -> Reply:
        interaction = self.discord.command(command, options or None, user=user)
        reply = self.discord.reply(interaction)
        self.interactions.append(interaction)
        self.replies.append(reply)
        return reply

    @property
    def reply(self) -> Reply:
        return self.replies[-1]


@pytest.fixture
def chat(running: BotThread, discord: FakeDiscord, fake_anthropic: FakeAnthropic) -> Iterator[Chat]:
    discord.reset()
    chat = Chat(discord, running)
    yield chat
    if chat.refresh is not None:
        chat.refresh.release()  # a scenario that failed midway still lets the write commit
    problems = running.take_problems()
    assert not problems, problems


@given("the bot is connected to Discord with the widgets documentation indexed")
def connected(chat: Chat) -> None:
    assert {c["name"] for c in chat.discord.commands[next(iter(chat.discord.commands))]} == {
        "ask",
        "sources",
        "status",
    }


@given(parsers.parse('the model answers "{answer}" citing "{heading}"'))
def model_answers(fake_anthropic: FakeAnthropic, answer: str, heading: str) -> None:
    fake_anthropic.script(citing(answer, heading))


@given(
    parsers.parse(
        "the model answers with {size:,d} characters of code fenced by {ticks:d} backticks, "
        'citing "{heading}"'
    )
)
def model_answers_long_code(
    fake_anthropic: FakeAnthropic, size: int, ticks: int, heading: str
) -> None:
    fake_anthropic.script(citing("`" * ticks + "\n" + "x = 1\n" * (size // 6), heading))


@given(
    parsers.parse(
        'the model answers "{answer}" with a right-to-left override before "{word}", '
        'citing "{heading}"'
    )
)
def model_answers_overridden(fake_anthropic: FakeAnthropic, answer: str, word: str, heading: str):
    fake_anthropic.script(citing(answer.replace(word, RIGHT_TO_LEFT_OVERRIDE + word), heading))


@given(parsers.parse('the model declines because "{reason}"'))
def model_declines(fake_anthropic: FakeAnthropic, reason: str) -> None:
    fake_anthropic.script(tool_call("", [], declined=True, reason=reason))


@given(parsers.parse("the model declines with a reason of {count:d} right-to-left overrides"))
def model_declines_unseen(fake_anthropic: FakeAnthropic, count: int) -> None:
    fake_anthropic.script(tool_call("", [], declined=True, reason=RIGHT_TO_LEFT_OVERRIDE * count))


@given("the model answers only when it is released")
def model_holds(fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.script(citing("Set `frobnication.depth` to seven.", "Tuning the frobnicator"))
    fake_anthropic.hold()


@given("a question may wait only a moment for its turn with the model")
def short_wait(chat: Chat, request: pytest.FixtureRequest) -> None:
    composer = chat.bot.service.composer
    assert composer is not None and composer.wait == 5.0  # one answer.timeout, as configured
    # A moment instead of five seconds keeps the scenario short. What decides it is not this
    # timer: the calls ahead hold their slots until the model is released, after it fires.
    composer.wait = 0.05
    request.addfinalizer(lambda: setattr(composer, "wait", 5.0))


@when(parsers.parse('every model call is taken and someone runs /ask "{question}"'))
def asks_when_busy(chat: Chat, fake_anthropic: FakeAnthropic, question: str) -> None:
    composer = chat.bot.service.composer
    assert composer is not None
    for _ in range(composer.limit):
        chat.held.append(
            chat.discord.command("ask", {"question": "What frobnication depth?"}, user=next(PEOPLE))
        )
    wait_for(lambda: len(fake_anthropic.received) == composer.limit)
    chat.run("ask", next(PEOPLE), question=question)


@given(parsers.parse('someone has run /ask "{question}"'))
@when(parsers.parse('someone runs /ask "{question}"'))
def someone_asks(chat: Chat, question: str) -> None:
    chat.run("ask", next(PEOPLE), question=question)


@when(parsers.parse('someone runs /ask "{question}" {times:d} times'))
def someone_asks_often(chat: Chat, question: str, times: int) -> None:
    person = next(PEOPLE)
    for _ in range(times):
        chat.run("ask", person, question=question)


@when("someone runs /sources")
def someone_lists_sources(chat: Chat) -> None:
    chat.run("sources", next(PEOPLE))


@when(parsers.parse('someone runs /sources with name "{name}"'))
def someone_asks_about_a_source(chat: Chat, name: str) -> None:
    chat.run("sources", next(PEOPLE), name=name)


@when(parsers.parse('someone presses a page button whose id reads "{custom_id}"'))
def presses_page_button(chat: Chat, custom_id: str) -> None:
    # An id no version of the bot makes: what a forged press, or one from a changed bot, carries.
    listed = chat.replies[0]
    chat.replies.append(
        chat.discord.reply(chat.discord.press(listed, custom_id, user=next(PEOPLE)))
    )


@when("someone runs /status")
def someone_asks_status(chat: Chat) -> None:
    chat.run("status", next(PEOPLE))


def _pressed(chat: Chat, label: str, reader: int) -> Interaction:
    answered = chat.replies[0]
    [button] = [b for b in answered.components[0]["components"] if b["label"] == label]
    return chat.discord.press(answered, button["custom_id"], user=reader)


def _press(chat: Chat, label: str, reader: int) -> None:
    chat.replies.append(chat.discord.reply(_pressed(chat, label, reader)))


@when(parsers.parse('a reader presses "{label}"'))
def reader_presses(chat: Chat, label: str) -> None:
    chat.reader = next(PEOPLE)
    _press(chat, label, chat.reader)


@when(parsers.parse('the same reader presses "{label}"'))
def same_reader_presses(chat: Chat, label: str) -> None:
    _press(chat, label, chat.reader)


@given("the answer is no longer recorded")
def answer_forgotten(chat: Chat) -> None:
    # As when the index file was made anew: the message and its buttons outlive the record.
    answer_id = int(chat.replies[0].custom_ids[0].split(":")[1])

    async def forget() -> None:
        async with chat.bot.engine.store.write() as conn:
            await conn.execute(
                "DELETE FROM questions WHERE id = (SELECT question_id FROM answers WHERE id = ?)",
                (answer_id,),
            )

    chat.bot.run(forget())


@given(parsers.parse('the last refresh of "{name}" failed with an error {size:,d} characters long'))
def long_last_error(chat: Chat, request: pytest.FixtureRequest, name: str, size: int) -> None:
    # A git error quoting a long line; the shared bot's source is put right after the scenario.
    store = chat.bot.engine.store

    async def record(error: str | None) -> None:
        async with store.write() as conn:
            await conn.execute(
                "UPDATE sources SET last_error = ?, last_error_at = ? WHERE name = ?",
                (error, "2026-11-30T12:00:00+00:00" if error else None, name),
            )

    chat.bot.run(record("the clone failed because " + "x" * size))
    request.addfinalizer(lambda: chat.bot.run(record(None)))


@given(parsers.parse('GitLab\'s listing of the group failed in the last build with "{error}"'))
def listing_failed(chat: Chat, request: pytest.FixtureRequest, error: str) -> None:
    # As the build records it; the shared bot's next listing that works would forget it too.
    store = chat.bot.engine.store
    group = chat.bot.engine.config.gitlab_group
    assert group is not None
    chat.bot.run(writer.record_listing(store, group, error))
    request.addfinalizer(lambda: chat.bot.run(writer.record_listing(store, group, None)))


@given(parsers.parse('the index knows a repository whose name is "{part}" {times:d} times'))
def long_named_source(chat: Chat, request: pytest.FixtureRequest, part: str, times: int) -> None:
    _known_source(chat, request, part * times, ("rejected", "excluded", "sources.exclude"))


@given(
    parsers.parse('the index knows an indexed repository whose name is "{part}" {times:d} times')
)
def long_named_indexed_source(
    chat: Chat, request: pytest.FixtureRequest, part: str, times: int
) -> None:
    _known_source(chat, request, part * times, ("admitted", "local", "a repository on disk"))


@given(parsers.parse('the index knows an indexed repository called "{name}"'))
def indexed_source(chat: Chat, request: pytest.FixtureRequest, name: str) -> None:
    _known_source(chat, request, name, ("admitted", "local", "a repository on disk"))


@given(parsers.parse('the index knows a GitLab project "{name}" that was rejected'))
def rejected_project(chat: Chat, request: pytest.FixtureRequest, name: str) -> None:
    _known_source(chat, request, name, ("rejected", "feed", "not in the estate feed"), "gitlab")


def _known_source(
    chat: Chat,
    request: pytest.FixtureRequest,
    name: str,
    verdict: tuple[str, str, str],
    origin: str = "local",
) -> None:
    # A directory or project path can be this long; the shared bot forgets it afterwards.
    store = chat.bot.engine.store

    async def change(sql: str, *values: str) -> None:
        async with store.write() as conn:
            await conn.execute(sql, (name, *values))

    chat.bot.run(
        change(
            "INSERT INTO sources (name, origin, location, verdict, clause, detail) "
            "VALUES (?, ?, '/srv/estate', ?, ?, ?)",
            origin,
            *verdict,
        )
    )
    request.addfinalizer(lambda: chat.bot.run(change("DELETE FROM sources WHERE name = ?")))


@given("Discord refuses the bot's next edit of a reply, once")
def discord_refuses_an_edit(chat: Chat) -> None:
    # As Discord refuses a message it will not show: a failure none of the bot's own handles.
    chat.discord.fail_next["PATCH /webhooks/"] = 400


@given("a refresh is writing to the index")
def refresh_writing(chat: Chat) -> None:
    chat.refresh = HeldWrite(chat.bot)


@when(parsers.parse('a reader presses "{label}" while the refresh writes'))
def presses_during_refresh(chat: Chat, label: str) -> None:
    chat.reader = next(PEOPLE)
    chat.pressed = _pressed(chat, label, chat.reader)


@then("Discord is told at once that a private reply is coming")
def told_at_once(chat: Chat) -> None:
    assert chat.pressed is not None
    press = chat.pressed
    chat.discord.until(lambda: press.deferred)
    assert press.calls[0].body["data"]["flags"] == EPHEMERAL
    assert not press.replies


@when("the refresh finishes writing")
def refresh_finishes(chat: Chat) -> None:
    assert chat.refresh is not None and chat.pressed is not None
    chat.refresh.release()
    chat.replies.append(chat.discord.reply(chat.pressed))


@then("the bot first deferred, then edited its reply in")
def deferred_then_edited(chat: Chat) -> None:
    first = chat.interactions[-1].calls[0]
    assert first.path.endswith("/callback") and first.body["type"] == 5
    assert chat.reply.how == "edit"


@then(parsers.parse('the reply shows the answer "{answer}"'))
def shows_answer(chat: Chat, answer: str) -> None:
    assert chat.reply.embeds[0]["description"] == answer


@then(parsers.parse("the answer's code block is closed by the same {ticks:d} backticks"))
def code_block_closed(chat: Chat, ticks: int) -> None:
    answer = chat.reply.embeds[0]["description"]
    assert answer.startswith("`" * ticks + "\n")
    assert answer.rsplit("\n\n", 1)[0].endswith("\n" + "`" * ticks)


@then(parsers.parse('the reply cites "{url}"'))
def cites(chat: Chat, url: str) -> None:
    sources = chat.reply.embeds[1]["description"]
    assert sources.startswith("**[") and f"]({url})" in sources


@then(parsers.parse('the reply has the buttons "{first}" and "{second}"'))
def has_buttons(chat: Chat, first: str, second: str) -> None:
    labels = [b["label"] for b in chat.reply.components[0]["components"]]
    assert labels == [first, second]


@then("no message the bot sent can ping anyone")
def pings_nobody(chat: Chat) -> None:
    sent = chat.discord.messages_sent()
    assert sent and all(m["allowed_mentions"] == {"parse": []} for m in sent)


@then("no message the bot sent holds a direction control")
def no_direction_control(chat: Chat) -> None:
    sent = json.dumps(chat.discord.messages_sent(), ensure_ascii=False)
    assert not DIRECTION_CONTROLS.search(sent), sent


@then(parsers.parse('the reply says "{text}"'))
def reply_says(chat: Chat, text: str) -> None:
    assert text in chat.reply.text, chat.reply.text


@then("every name the list shows is bold, and the bold closes")
def names_bold_and_closed(chat: Chat) -> None:
    for line in chat.reply.embeds[0]["description"].splitlines():
        markup = re.sub(r"\\.", "", line)  # escaped characters show as themselves
        assert markup.startswith("**") and markup.count("*") == 4, line


@then(parsers.parse('only the reader sees "{text}"'))
@then(parsers.parse('only they see "{text}"'))
def only_they_see(chat: Chat, text: str) -> None:
    assert chat.reply.ephemeral and text in chat.reply.content, chat.reply


@then("the bot's log holds the failure under the reference the reader was given")
def failure_logged_under_reference(chat: Chat) -> None:
    match = re.search(r"quote reference (\d+)\.", chat.reply.content)
    assert match, chat.reply.content
    problems = chat.bot.take_problems()  # taken, so the scenario does not fail on them
    assert [p for p in problems if f"interaction {match[1]}: press of " in p], problems


@then("the model was not asked")
def model_not_asked(fake_anthropic: FakeAnthropic) -> None:
    assert fake_anthropic.received == []


@then("the question is recorded as busy, not as an error or a documentation gap")
def recorded_as_busy(chat: Chat) -> None:
    engine = chat.bot.engine
    row = chat.bot.run(
        engine.store.fetchone(
            "SELECT a.outcome, a.reason FROM answers a JOIN questions q ON q.id = a.question_id"
            " WHERE q.question = ?",
            ("How do I install widgets?",),
        )
    )
    assert row is not None and row[0] == "busy" and row[1].startswith("I'm busy")
    gaps = chat.bot.run(engine.gaps())
    assert all(gap.question != "How do I install widgets?" for g in gaps for gap in g.gaps)


@then("the questions ahead of it are answered once the model is released")
def held_answered(chat: Chat, fake_anthropic: FakeAnthropic) -> None:
    fake_anthropic.release()
    for interaction in chat.held:
        assert chat.discord.reply(interaction).embeds[0]["title"] == "Answer"


@then("the answer has exactly one vote, and it is not helpful")
def one_vote(chat: Chat) -> None:
    custom_id = chat.replies[0].custom_ids[0]
    answer_id = int(custom_id.split(":")[1])
    rows = chat.bot.run(
        chat.bot.engine.store.fetchall(
            "SELECT voter, helpful FROM votes WHERE answer_id = ?", (answer_id,)
        )
    )
    assert [tuple(r) for r in rows] == [(str(chat.reader), 0)]
