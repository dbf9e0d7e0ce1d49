import dataclasses
import json
import sqlite3
from collections.abc import Iterator

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from bot.answer.fence import looks_like_delimiter
from bot.cli import main
from features.conftest import World, cli_arguments
from tests.fakes.anthropic_server import KEY, Behaviour, citing, error, message, tool_call
from tests.fakes.gitlab import Recorder
from tests.pipes import run_cli

scenarios("ask.feature")


@pytest.fixture
def elsewhere() -> Iterator[Recorder]:
    """Another host, on another loopback address, recording whatever reaches it."""
    with Recorder() as foreign:
        yield foreign


def _set_answer(world: World, text: str) -> None:
    path = world.root / "phpbotscout.toml"
    path.write_text(path.read_text() + text)


@given("answers are composed by the Anthropic API")
def anthropic_answers(world, fake_anthropic, monkeypatch):
    _set_answer(world, '\n[answer]\nprovider = "anthropic"\ntimeout = "5s"\n')
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_anthropic.url)


@given("answers are not composed")
def no_model(world):
    path = world.root / "phpbotscout.toml"
    path.write_text(path.read_text().replace('provider = "anthropic"', 'provider = "none"'))


@given("no Anthropic API key is set")
def no_key(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


@given(parsers.parse('the model answers "{answer}" citing "{heading}"'))
def model_answers_citing(fake_anthropic, answer, heading):
    fake_anthropic.script(citing(answer, heading))


@given(parsers.parse('the model answers, citing "{heading}":'))
def model_answers_at_length(fake_anthropic, heading, docstring: str):
    fake_anthropic.script(citing(docstring, heading))


@given(parsers.parse("the model answers, citing passage {n:d}:"))
def model_answers_at_length_citing_number(fake_anthropic, n, docstring: str):
    fake_anthropic.script(tool_call(docstring, [n]))


@given(parsers.parse('the model answers "{answer}" citing passage {n:d}'))
def model_answers_citing_number(fake_anthropic, answer, n):
    fake_anthropic.script(tool_call(answer, [n]))


@given(
    parsers.parse(
        'the model answers "{answer}" citing "{heading}", while another process takes the '
        "index's write lock"
    )
)
def model_answers_while_locked(world, fake_anthropic, request, answer, heading):
    holder = sqlite3.connect(
        world.root / "index.sqlite", isolation_level=None, check_same_thread=False
    )
    request.addfinalizer(holder.close)  # closing it gives the lock back
    answering = citing(answer, heading)

    def lock_then_answer(body):
        # Runs as the request arrives, in the fake's thread: the lock is held from then on,
        # past the 10 s any write of the index waits for it.
        holder.execute("BEGIN IMMEDIATE")
        return answering(body)

    fake_anthropic.script(lock_then_answer)


@given(parsers.parse('the model answers "{answer}" with no citation listed'))
def model_answers_listing_none(fake_anthropic, answer):
    fake_anthropic.script(tool_call(answer, []))


@given(parsers.parse('the model declines because "{reason}"'))
def model_declines(fake_anthropic, reason):
    fake_anthropic.script(tool_call("", [], declined=True, reason=reason))


@given(parsers.parse('the model takes {seconds:g} seconds to decline because "{reason}"'))
def model_declines_slowly(fake_anthropic, seconds, reason):
    declined = tool_call("", [], declined=True, reason=reason)
    fake_anthropic.script(dataclasses.replace(declined, delay=seconds))


@given("the model is overloaded")
def model_overloaded(fake_anthropic):
    fake_anthropic.script(error(529, "overloaded_error", "Overloaded", {"retry-after-ms": "5"}))


@given(parsers.parse("the API answers every request with a {status:d} redirect to another host"))
def api_redirects(fake_anthropic, elsewhere, status):
    target = f"{elsewhere.url}/v1/messages"
    fake_anthropic.script(Behaviour(status, {}, {"Location": target}))


@given(parsers.parse('the API answers every request with a {status:d} redirect to "{location}"'))
def api_redirects_to(fake_anthropic, status, location):
    fake_anthropic.script(Behaviour(status, {}, {"Location": location}))


@given(parsers.parse('the API refuses the request because "{said}"'))
def api_refuses(fake_anthropic, said):
    fake_anthropic.script(error(400, "invalid_request_error", said))


@given(parsers.parse('the API key may use only the model "{model}"'))
def key_kept_to_model(fake_anthropic, model):
    fake_anthropic.allow_models(model)


@given(parsers.parse('answer.timeout is "{timeout}"'))
def answer_timeout(world, timeout):
    path = world.root / "phpbotscout.toml"
    text = path.read_text()
    assert 'timeout = "5s"' in text, "the scenario's configuration sets no answer.timeout"
    path.write_text(text.replace('timeout = "5s"', f'timeout = "{timeout}"'))


@given(parsers.parse("the API rate-limits the key and asks to wait {seconds:d} seconds"))
def rate_limited(fake_anthropic, seconds):
    limited = error(429, "rate_limit_error", "Rate limited", {"retry-after": str(seconds)})
    fake_anthropic.script(limited)


@given("the model's reply is cut off at its output limit")
def model_cut_off(fake_anthropic):
    partial = {"type": "tool_use", "id": "toolu_01", "name": "answer", "input": {"answer": "Set"}}
    fake_anthropic.script(message([partial], "max_tokens"))


@given("the model replies in plain prose instead of calling the answer tool")
def model_replies_in_prose(fake_anthropic):
    fake_anthropic.script(message([{"type": "text", "text": "Set it to seven."}], "end_turn"))


@given(parsers.parse('the API\'s address carries the password "{password}"'))
def address_with_password(fake_anthropic, monkeypatch, password):
    url = fake_anthropic.url.replace("http://", f"http://proxy:{password}@")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)


@given(parsers.parse('the API\'s address has "{suffix}" at its end'))
def address_with_suffix(fake_anthropic, monkeypatch, suffix):
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_anthropic.url + suffix)


@given(parsers.parse('the API\'s address is "{url}"'))
def api_address(monkeypatch, url):
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)


@given(parsers.parse('someone has asked "{question}"'))
def someone_asked(question, capsys: pytest.CaptureFixture[str]):
    assert main(["ask", question]) == 0
    capsys.readouterr()


@when(
    parsers.parse(
        "I run {command} as a process of its own, with the byte 0xFF at the end of the question"
    )
)
def run_with_a_byte_not_utf8(world, command):
    argv = cli_arguments(command)
    # The command line's bytes as Python reads them: one that is not UTF-8, as a lone surrogate.
    argv[1] += " \udcff"
    done = run_cli(argv, cwd=world.root)
    world.code, world.stdout, world.stderr = done.returncode, done.stdout, done.stderr


@then(parsers.parse('the JSON\'s "{key}" says "{text}"'))
def json_key_says(world, key, text):
    assert text in world.json()[key], world.json()


@then(parsers.parse('the outcome is "{kind}"'))
def outcome_is(world, kind):
    assert world.json()["outcome"] == kind, world.stdout


@then(parsers.parse('the answer cites "{heading}"'))
def answer_cites(world, heading):
    data = world.json()
    assert [c["heading"] for c in data["citations"]] == [heading]
    assert data["decline"] is None
    assert all(c["url"] for c in data["citations"])


@then(parsers.parse("the answer cites {count:d} passages"))
def answer_cites_count(world, count):
    data = world.json()
    assert len(data["citations"]) == count, data["citations"]
    assert data["decline"] is None


@then("the model was sent the passages fenced and numbered")
def fenced(world, fake_anthropic):
    [request] = fake_anthropic.received
    assert request.body["tool_choice"] == {"type": "tool", "name": "answer"}
    prompt = request.body["messages"][0]["content"]
    fences = [line for line in prompt.splitlines() if looks_like_delimiter(line)]
    count = len(world.json()["passages"])
    assert fences == [
        line
        for n in range(1, count + 1)
        for line in (f"-----BEGIN PASSAGE {n}-----", f"-----END PASSAGE {n}-----")
    ]


@then(parsers.parse('the question is declined as "{kind}"'))
def declined_as(world, kind):
    data = world.json()
    assert data["outcome"] == "declined"
    assert data["decline"]["kind"] == kind
    assert data["answer"] is None and data["citations"] == []


@then(parsers.parse('the decline reason says "{text}"'))
def reason_says(world, text):
    assert text in world.json()["decline"]["reason"]


@then("nothing reached the other host")
def nothing_elsewhere(elsewhere):
    assert elsewhere.log == []


@then("the model was not asked")
def not_asked(fake_anthropic):
    assert fake_anthropic.received == []


@then(parsers.parse('the error kind is "{kind}"'))
def error_kind(world, kind):
    assert world.json()["error"]["kind"] == kind


@then(parsers.parse('the error message says to set the API\'s address without "{suffix}"'))
def error_says_address_without(world, fake_anthropic, suffix):
    assert not fake_anthropic.url.endswith(suffix)
    assert f"set it to {fake_anthropic.url} instead" in world.json()["error"]["message"]


@then(parsers.parse('the error message says "{text}"'))
def error_message_says(world, text):
    assert text in world.json()["error"]["message"]


@then("the documentation-gap backlog is empty")
def backlog_empty(world, capsys: pytest.CaptureFixture[str]):
    assert main(["gaps", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["groups"] == []


@then(parsers.parse('the backlog lists "{question}" as "{kind}"'))
def backlog_lists(world, question, kind):
    groups = {g["kind"]: g for g in world.json()["groups"]}
    assert [gap["question"] for gap in groups[kind]["gaps"]] == [question]


@then(parsers.parse('the backlog dates "{question}" by when the model was asked, not by its reply'))
def backlog_dates_by_asking(world, fake_anthropic, question):
    [gap] = [g for group in world.json()["groups"] for g in group["gaps"]]
    [request] = fake_anthropic.received
    # The reply came more than a second after the request: a gap dated by the reply would
    # fall in a later second than the request was sent in.
    assert gap["question"] == question
    assert gap["last_asked"] <= request.at, (gap["last_asked"], request.at)


@then(parsers.parse('"{secret}" appears nowhere in the output'))
def secret_nowhere(world, secret):
    assert secret not in world.stdout and secret not in world.stderr


@then("the API key appears nowhere in the output")
def key_not_printed(world):
    assert KEY not in world.stdout and KEY not in world.stderr
