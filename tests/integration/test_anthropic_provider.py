"""The anthropic provider: the real SDK against the fake Messages API on 127.0.0.1."""

import asyncio
import sqlite3
import time

import pytest

from bot.answer.fence import looks_like_delimiter
from bot.answer.prompt import INSTRUCTIONS, REPLY_SCHEMA
from bot.errors import ConfigError, ProviderError
from tests.answering import (
    answer_config,
    anthropic_env,
    make_estate,
    number_of,
    open_indexed,
)
from tests.fakes.anthropic_server import KEY, Behaviour, citing, error, message, tool_call

QUESTION = "What frobnication depth should I set?"


def config_for(tmp_path, fake_anthropic, timeout=5.0):
    estate = make_estate(tmp_path / "estate")
    env = anthropic_env(fake_anthropic.url)
    return answer_config(tmp_path, estate, "anthropic", env=env, timeout=timeout)


@pytest.fixture
async def engine(tmp_path, fake_anthropic):
    engine = await open_indexed(config_for(tmp_path, fake_anthropic))
    yield engine
    await engine.close()


async def tuning(engine) -> int:
    return number_of((await engine.retrieve(QUESTION)).results, "Tuning the frobnicator")


async def answer_rows(engine):
    rows = await engine.store.fetchall(
        "SELECT outcome, decline_kind, reason, answer, draft, provider, model, input_tokens,"
        " output_tokens FROM answers ORDER BY id"
    )
    return [tuple(r) for r in rows]


async def test_a_grounded_answer_is_returned_with_its_citations(engine, fake_anthropic):
    n = await tuning(engine)
    fake_anthropic.script(tool_call("Set `frobnication.depth` to seven.", [n]))
    outcome = await engine.ask(QUESTION)
    assert outcome.kind == "answered"
    assert outcome.answer == "Set `frobnication.depth` to seven."
    assert [(c.n, c.heading) for c in outcome.citations] == [(n, "Tuning the frobnicator")]
    assert outcome.citations[0].url == "https://widgets.example/guide/#tuning-the-frobnicator"
    assert outcome.decline is None
    assert (outcome.provider, outcome.model) == ("anthropic", "claude-haiku-4-5")
    assert outcome.usage is not None and outcome.usage.input_tokens == 812
    assert await answer_rows(engine) == [
        ("answered", None, None, outcome.answer, None, "anthropic", "claude-haiku-4-5", 812, 64)
    ]


async def test_the_request_is_fenced_forced_and_carries_the_key_only_in_its_header(
    engine, fake_anthropic
):
    n = await tuning(engine)
    fake_anthropic.script(tool_call("Set `frobnication.depth` to seven.", [n]))
    await engine.ask(QUESTION)
    [seen] = fake_anthropic.received
    assert (seen.path, seen.query) == ("/v1/messages", "")
    body = seen.body
    assert body["model"] == "claude-haiku-4-5"
    assert body["tool_choice"] == {"type": "tool", "name": "answer"}
    assert [t["name"] for t in body["tools"]] == ["answer"]
    assert body["tools"][0]["input_schema"] == REPLY_SCHEMA
    assert body["system"] == INSTRUCTIONS
    [turn] = body["messages"]
    assert turn["role"] == "user"
    prompt = turn["content"]
    passages = (await engine.retrieve(QUESTION)).results
    fences = [line for line in prompt.splitlines() if looks_like_delimiter(line)]
    expected = []
    for i in range(1, len(passages) + 1):
        expected += [f"-----BEGIN PASSAGE {i}-----", f"-----END PASSAGE {i}-----"]
    assert fences == expected
    assert "Set `frobnication.depth` to seven in `widgets.toml`." in prompt
    assert prompt.rstrip().endswith(QUESTION)
    # The key goes in the Authorization header and nowhere else.
    assert seen.headers["Authorization"] == f"Bearer {KEY}"
    assert KEY.encode() not in seen.raw
    others = {k: v for k, v in seen.headers.items() if k.lower() != "authorization"}
    assert not any(KEY in v for v in others.values())


async def test_a_decline_from_the_model_is_a_composer_decline(engine, fake_anthropic):
    fake_anthropic.script(
        tool_call("", [], declined=True, reason="The guide covers tuning but not colours.")
    )
    outcome = await engine.ask("Which colours can a widget be?")
    assert outcome.kind == "declined"
    assert outcome.decline is not None
    assert outcome.decline.kind == "composer_declined"
    assert outcome.decline.reason == "The guide covers tuning but not colours."
    assert outcome.answer is None and outcome.citations == ()


async def test_a_link_in_a_decline_reason_is_shown_only_if_a_passage_gives_it(
    engine, fake_anthropic
):
    # A passage can talk the model into pointing the asker anywhere; the reason is shown.
    fake_anthropic.script(
        tool_call("", [], declined=True, reason="Not covered. See https://evil.example/fix")
    )
    outcome = await engine.ask("Which colours can a widget be?")
    assert outcome.decline is not None and outcome.decline.kind == "composer_declined"
    assert outcome.decline.reason == "Not covered. See (a link no passage gives was removed)"
    row = await engine.store.fetchone("SELECT reason FROM answers")
    assert row[0] == outcome.decline.reason


async def test_a_reply_saying_only_that_the_passages_do_not_answer_is_a_documentation_gap(
    engine, fake_anthropic
):
    # Sent as an answer, not declined, and citing a passage that was supplied.
    n = await tuning(engine)
    said = f"The passages do not say which colours a widget can be [{n}]."
    fake_anthropic.script(tool_call(said, [n]))
    outcome = await engine.ask("Which colours can a widget be?")
    assert outcome.kind == "declined"
    assert outcome.decline is not None and outcome.decline.kind == "composer_declined"
    assert outcome.decline.reason == "The passages do not say which colours a widget can be."
    assert outcome.answer is None and outcome.citations == ()
    [row] = await answer_rows(engine)
    assert row[:5] == ("declined", "composer_declined", outcome.decline.reason, None, said)
    [gaps] = await engine.gaps()
    assert [g.question for g in gaps.gaps] == ["Which colours can a widget be?"]


# Each reply is made from the number of the passage that does answer the question.
ADVERSARIAL = {
    "cites-nothing": (lambda n: tool_call("Set it to seven.", []), "cited no passage"),
    "cites-99": (lambda n: tool_call("Set `frobnication.depth` to 7.", [99]), "cited passage 99"),
    "cites-0-and-right": (
        lambda n: tool_call("Set `frobnication.depth` to 7.", [n, 0]),
        "cited passage 0",
    ),
    "invented-identifier": (
        lambda n: tool_call("Set `frobnication.level` to 7.", [n]),
        "names `frobnication.level`, which no cited passage contains",
    ),
    "identifier-from-uncited-passage": (
        lambda n: tool_call("Run `widgetctl install`, then set the depth to seven.", [n]),
        "`widgetctl install`",
    ),
    "empty-answer": (lambda n: tool_call("", [n]), "neither answered nor declined"),
}  # fmt: skip


@pytest.mark.parametrize("name", ADVERSARIAL)
async def test_adversarial_replies_are_never_shown(engine, fake_anthropic, name):
    make_reply, reason = ADVERSARIAL[name]
    fake_anthropic.script(make_reply(await tuning(engine)))
    outcome = await engine.ask(QUESTION)
    assert outcome.kind == "declined"
    assert outcome.answer is None and outcome.citations == ()
    assert outcome.decline is not None
    assert outcome.decline.kind == "ungrounded"
    assert reason in outcome.decline.reason
    [row] = await answer_rows(engine)
    assert row[:2] == ("declined", "ungrounded")


# Replies not in the reply's structure: they say nothing about the passages.
UNREADABLE = {
    "malformed": (
        tool_call(tool_input={"answer": 7, "citations": "one"}),
        "the reply lacks declined, reason",
    ),
    "missing-fields": (
        tool_call(tool_input={"text": "hi"}),
        "the reply lacks answer, citations, declined, reason",
    ),
    "wrong-types": (
        tool_call(tool_input={"answer": 7, "citations": [1], "declined": False, "reason": ""}),
        "answer and reason must be text",
    ),
    "citations-as-text": (
        tool_call(tool_input={"answer": "Seven.", "citations": ["1"],
                              "declined": False, "reason": ""}),
        "citations must be a list of passage numbers",
    ),
    "wrong-tool": (
        tool_call("x", [1], name="other_tool"),
        "no answer tool call (stop reason tool_use)",
    ),
    "plain-text": (
        message([{"type": "text", "text": "Seven."}], "end_turn"),
        "no answer tool call (stop reason end_turn)",
    ),
    "unknown-blocks": (
        message([{"foo": 1}, "text"], "end_turn"),
        "no answer tool call (stop reason end_turn)",
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", UNREADABLE)
async def test_an_unreadable_reply_is_an_error_and_never_a_documentation_gap(
    engine, fake_anthropic, name
):
    reply, says = UNREADABLE[name]
    fake_anthropic.script(reply)
    with pytest.raises(ProviderError) as caught:
        await engine.ask(QUESTION)
    assert str(caught.value) == f"The model's reply could not be read: {says}. Ask again."
    assert caught.value.exit_code == 1
    [row] = await answer_rows(engine)
    assert row[:3] == ("error", None, str(caught.value))
    assert await engine.gaps() == []


# Replies the model never finished: what is left is not its reading of the passages.
UNFINISHED = {
    "max_tokens": (
        [{"type": "tool_use", "id": "toolu_01Fake", "name": "answer",
          "input": {"answer": "Set `frobnication.depth` to"}}],
        r"ran past the 2,048 output tokens .* Ask a narrower question",
    ),
    "refusal": ([], r"safety checks .* Rephrase the question"),
    "pause_turn": ([], r"paused the reply .* Ask again"),
}  # fmt: skip


@pytest.mark.parametrize("name", UNFINISHED)
async def test_an_unfinished_reply_is_an_error_and_never_a_documentation_gap(
    engine, fake_anthropic, name
):
    content, says = UNFINISHED[name]
    fake_anthropic.script(message(content, name, output_tokens=2048))
    with pytest.raises(ProviderError, match=says) as caught:
        await engine.ask(QUESTION)
    assert f"(stop reason {name})" in str(caught.value)
    [row] = await answer_rows(engine)
    assert row[:3] == ("error", None, str(caught.value))
    assert await engine.gaps() == []


async def test_a_429_is_retried_and_then_answered(engine, fake_anthropic):
    n = await tuning(engine)
    fake_anthropic.script(
        error(429, "rate_limit_error", "slow down", {"retry-after": "0"}),
        tool_call("Set `frobnication.depth` to seven.", [n]),
    )
    outcome = await engine.ask(QUESTION)
    assert outcome.kind == "answered"
    retries = [r.headers.get("x-stainless-retry-count") for r in fake_anthropic.received]
    assert retries == ["0", "1"]


async def test_overloaded_every_time_is_an_error_after_bounded_retries(engine, fake_anthropic):
    fake_anthropic.script(
        error(529, "overloaded_error", "Overloaded", {"retry-after-ms": "10"}),
    )
    with pytest.raises(ProviderError, match="529 overloaded_error") as caught:
        await engine.ask(QUESTION)
    assert len(fake_anthropic.received) == 3  # the first try and two retries
    assert caught.value.exit_code == 1
    assert await answer_rows(engine) == [
        ("error", None, str(caught.value), None, None, "anthropic", "claude-haiku-4-5", None,
         None)
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("status", "kind", "said", "advice", "not_advised"),
    [
        (400, "invalid_request_error", "prompt is too long: 210311 tokens > 200000 maximum",
         "ask a shorter question", "Check answer.model"),
        (413, "request_too_large", "Request exceeds the maximum allowed number of bytes.",
         "ask a shorter question", "Check answer.model"),
        (400, "invalid_request_error", "Your credit balance is too low to access the API.",
         "plan and credit", "Check answer.model"),
        (400, "invalid_request_error", "model: claude-nonesuch is not a valid model",
         "Check answer.model", "shorter question"),
        (400, "invalid_request_error", "messages.0.content: unexpected field",
         "check ANTHROPIC_BASE_URL", "Check answer.model"),
        (404, "not_found_error", "model: claude-nonesuch",
         "Check answer.model", "ANTHROPIC_BASE_URL"),
        (404, "not_found_error", "Not Found",
         "check ANTHROPIC_BASE_URL if it is set (the client adds /v1/messages to it)",
         "answer.model"),
    ],
    ids=["prompt-too-long", "request-too-large", "billing", "model", "other", "no-such-model",
         "no-such-address"],
)  # fmt: skip
async def test_a_refused_request_gets_the_advice_that_fits_its_error(
    engine, fake_anthropic, status, kind, said, advice, not_advised
):
    fake_anthropic.script(error(status, kind, said))
    with pytest.raises(ProviderError) as caught:
        await engine.ask(QUESTION)
    message = str(caught.value)
    assert f"HTTP {status} {kind}" in message and said in message
    assert advice in message and not_advised not in message
    assert ".." not in message  # what the API said ends its own sentence, stopped or not


async def test_a_key_kept_from_the_model_says_to_change_answer_model_or_grant_access(
    tmp_path, fake_anthropic
):
    estate = make_estate(tmp_path / "estate")
    env = anthropic_env(fake_anthropic.url)
    fake_anthropic.allow_models("claude-haiku-5-5")
    fake_anthropic.script(citing("Set `frobnication.depth` to seven.", "Tuning the frobnicator"))
    async with await open_indexed(answer_config(tmp_path, estate, "anthropic", env=env)) as engine:
        with pytest.raises(ProviderError) as caught:
            await engine.ask(QUESTION)
    assert len(fake_anthropic.received) == 1  # a 403 is not retried
    message = str(caught.value)
    assert "HTTP 403 permission_error" in message
    assert "does not have permission to use the specified resource. " in message
    assert (
        "The key was accepted but is not allowed to use the model claude-haiku-4-5: set "
        "answer.model to a model the key may use, or grant the key access to it."
    ) in message
    assert "ANTHROPIC_API_KEY" not in message and ".." not in message
    # Doing as the message says mends it.
    allowed = {"answer": {"provider": "anthropic", "model": "claude-haiku-5-5", "timeout": 5.0}}
    config = answer_config(tmp_path, estate, "anthropic", env=env, extra=allowed)
    async with await open_indexed(config) as engine:
        outcome = await engine.ask(QUESTION)
    assert (outcome.kind, outcome.model) == ("answered", "claude-haiku-5-5")


async def test_a_refused_key_is_an_error_naming_the_variable_not_the_key(tmp_path, fake_anthropic):
    estate = make_estate(tmp_path / "estate")
    wrong = "sk-ant-wrong-key-123"
    config = answer_config(
        tmp_path, estate, "anthropic", env=anthropic_env(fake_anthropic.url, key=wrong)
    )
    async with await open_indexed(config) as engine:
        fake_anthropic.script(tool_call("never", [1]))
        with pytest.raises(ProviderError) as caught:
            await engine.ask(QUESTION)
    assert len(fake_anthropic.received) == 1  # a 401 is not retried
    message = str(caught.value)
    assert "401" in message and "ANTHROPIC_API_KEY" in message
    assert wrong not in message
    database = sqlite3.connect(tmp_path / "index.sqlite")
    dump = "\n".join(database.iterdump())
    database.close()
    assert wrong not in dump


async def test_a_slow_model_is_an_error_within_the_timeout(tmp_path, fake_anthropic):
    slow = tool_call("Set `frobnication.depth` to seven.", [1])
    fake_anthropic.script(Behaviour(slow.status, slow.body, slow.headers, delay=10.0))
    async with await open_indexed(config_for(tmp_path, fake_anthropic, 0.5)) as engine:
        started = time.perf_counter()
        with pytest.raises(ProviderError, match=r"within answer\.timeout \(0\.5 s\)"):
            await engine.ask(QUESTION)
        assert time.perf_counter() - started < 5.0


@pytest.mark.parametrize(
    ("status", "kind", "said"),
    [
        (429, "rate_limit_error", r"rate-limiting this key \(HTTP 429\)"),
        (529, "overloaded_error", r"failing or overloaded \(HTTP 529\)"),
    ],
)
async def test_a_retry_after_past_the_deadline_is_reported_as_the_apis_refusal(
    tmp_path, fake_anthropic, status, kind, said
):
    # The SDK waits as long as retry-after says; the deadline cuts that wait short, and the
    # asker is told what the API said, not that the model was slow.
    fake_anthropic.script(error(status, kind, "try later", {"retry-after": "30"}))
    async with await open_indexed(config_for(tmp_path, fake_anthropic, 0.5)) as engine:
        started = time.perf_counter()
        with pytest.raises(ProviderError, match=said) as caught:
            await engine.ask(QUESTION)
        assert time.perf_counter() - started < 5.0
    assert "answer.timeout (0.5 s) ran out. Ask again later." in str(caught.value)
    assert len(fake_anthropic.received) == 1


@pytest.mark.parametrize("status", [302, 307, 308])
async def test_a_redirect_is_an_error_and_nothing_goes_where_it_points(
    engine, fake_anthropic, recorder, status
):
    # A 307 or 308, followed, would send the question and its passages on to the other host.
    elsewhere = f"{recorder.url}/v1/messages?token=SECRET"
    fake_anthropic.script(Behaviour(status, {}, {"Location": elsewhere}))
    with pytest.raises(ProviderError) as caught:
        await engine.ask(QUESTION)
    assert recorder.log == []
    assert len(fake_anthropic.received) == 1  # a redirect is not retried either
    message = str(caught.value)
    assert message.startswith(
        f"The Anthropic API at {fake_anthropic.url} answered with a redirect (HTTP {status}) "
        f"to {recorder.url}/v1/messages?"
    )
    assert "SECRET" not in message
    assert (
        f"Set ANTHROPIC_BASE_URL to the address the API answers at without redirecting "
        f"({recorder.url}, if that is the API you meant), then ask again."
    ) in message
    [row] = await answer_rows(engine)
    assert row[:3] == ("error", None, message)
    assert await engine.gaps() == []


@pytest.mark.parametrize(
    ("location", "where"),
    [
        ("", "no address at all"),
        ("http://[::1", "an address that is not a URL"),
        # Read as a host with a bracket in it: shown, and its password still is not.
        ("https://user:SECRET@[bad/v1/messages", "https://***@%5bbad/v1/messages"),
    ],
)
async def test_a_redirect_to_no_address_or_a_malformed_one_is_an_error_saying_so(
    engine, fake_anthropic, location, where
):
    # Nothing to follow, or nothing sound: still the provider's error, not a crash.
    fake_anthropic.script(Behaviour(307, {}, {"Location": location} if location else {}))
    with pytest.raises(ProviderError) as caught:
        await engine.ask(QUESTION)
    message = str(caught.value)
    assert message.startswith(
        f"The Anthropic API at {fake_anthropic.url} answered with a redirect (HTTP 307) to "
        f"{where}; "
    )
    assert "SECRET" not in message
    assert "it was not followed, so nothing was sent there" in message
    [row] = await answer_rows(engine)
    assert row[:3] == ("error", None, message)


async def test_nothing_matched_asks_no_model(engine, fake_anthropic):
    outcome = await engine.ask("zyzzyva quux")
    assert outcome.kind == "declined"
    assert outcome.decline is not None and outcome.decline.kind == "nothing_matched"
    assert outcome.model is None
    assert fake_anthropic.received == []


async def test_a_missing_key_is_a_configuration_error(tmp_path):
    estate = make_estate(tmp_path / "estate")
    config = answer_config(tmp_path, estate, "anthropic")
    async with await open_indexed(config) as engine:
        with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY") as caught:
            await engine.ask(QUESTION)
    assert caught.value.exit_code == 2


async def test_concurrent_questions_are_answered_and_recorded_apart(engine, fake_anthropic):
    fake_anthropic.script(citing("Set `frobnication.depth` to seven.", "Tuning the frobnicator"))
    questions = [f"What frobnication depth should I set for widget {i}?" for i in range(6)]
    outcomes = await asyncio.gather(*(engine.ask(q) for q in questions))
    assert [o.kind for o in outcomes] == ["answered"] * 6
    assert [o.question for o in outcomes] == questions
    assert len({o.answer_id for o in outcomes}) == 6
    # Each request carried its own question and nothing of the others.
    asked = sorted(
        r.body["messages"][0]["content"].rsplit("\n", 1)[1] for r in fake_anthropic.received
    )
    assert asked == sorted(questions)


@pytest.mark.parametrize("body", [{"foo": "bar"}, [], {"type": "message", "content": "x"}])
async def test_a_reply_that_is_not_a_message_is_a_provider_error(engine, fake_anthropic, body):
    fake_anthropic.script(Behaviour(200, body))
    with pytest.raises(ProviderError, match="not a usable message"):
        await engine.ask(QUESTION)


def test_a_password_in_the_base_url_is_refused_before_anything_is_sent(tmp_path, fake_anthropic):
    estate = make_estate(tmp_path / "estate")
    with_password = fake_anthropic.url.replace("http://", "http://proxy:PASSWORD@")
    # The SDK's HTTP client cannot send the key to such an address; it is refused up front.
    with pytest.raises(
        ConfigError, match=r"ANTHROPIC_BASE_URL.*http://\*\*\*@127\.0\.0\.1:"
    ) as caught:
        answer_config(tmp_path, estate, "anthropic", env=anthropic_env(with_password))
    assert "PASSWORD" not in str(caught.value)
    assert fake_anthropic.received == []


@pytest.mark.parametrize("suffix", ["/v1", "/v1/"])
async def test_a_base_url_ending_in_v1_is_refused_before_anything_is_sent(
    tmp_path, fake_anthropic, suffix
):
    estate = make_estate(tmp_path / "estate")
    # The SDK adds /v1/messages to the address, so this one would ask /v1/v1/messages: a 404
    # at the first question. It is refused when the configuration is read, with the fix.
    with pytest.raises(ConfigError) as caught:
        answer_config(tmp_path, estate, "anthropic", env=anthropic_env(fake_anthropic.url + suffix))
    message = str(caught.value)
    assert message.startswith("environment variable 'ANTHROPIC_BASE_URL' has value"), message
    assert "/v1/v1/messages" in message and f"set it to {fake_anthropic.url} instead" in message
    assert caught.value.exit_code == 2
    assert fake_anthropic.received == []
    # The same address without /v1 is the one that works.
    fake_anthropic.script(citing("Set `frobnication.depth` to seven.", "Tuning the frobnicator"))
    config = answer_config(tmp_path, estate, "anthropic", env=anthropic_env(fake_anthropic.url))
    async with await open_indexed(config) as engine:
        assert (await engine.ask(QUESTION)).kind == "answered"
    assert [r.path for r in fake_anthropic.received] == ["/v1/messages"]
