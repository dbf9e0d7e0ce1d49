"""``bench`` refusing what it cannot measure: run in-process, on real files and repositories."""

import json
from pathlib import Path

import pytest

from bot.cli import main
from tests.gitrepo import git, make_repo

GOOD = (
    '{"id": "q1", "band": "docs", "question": "frobnication depth?", "expected": '
    '[{"repo": "widgets", "path": "docs/guide.md", "heading": "Tuning"}]}\n'
)


@pytest.fixture
def estate(home: Path, tmp_path: Path) -> Path:
    make_repo(tmp_path / "estate" / "widgets", {"docs/guide.md": "# G\n\n## Tuning\n\nDepth.\n"})
    return tmp_path / "estate"


def bench(capsys: pytest.CaptureFixture[str], questions: Path, repos: Path) -> tuple[int, str]:
    """Run bench with and without --json; return the exit code and the JSON error message."""
    code = main(["bench", str(questions), "--repos", str(repos)])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    json_code = main(["bench", str(questions), "--repos", str(repos), "--json"])
    error = json.loads(capsys.readouterr().out)["error"]
    assert (json_code, error["kind"]) == (code, "usage")
    return code, error["message"]


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (GOOD.encode() + b'{"id": "q\xff2"}\n', "questions.jsonl line 2 is not UTF-8 text"),
        (b"[" * 200_000 + b"\n", "line 1 is nested too deeply"),
        (GOOD.replace('"frobnication depth?"', "null").encode(), "line 1: question is null"),
        (GOOD.replace('"frobnication depth?"', '"  "').encode(), 'line 1: question is "  "'),
        (GOOD.replace('"q1"', "null").encode(), "line 1: id is null"),
        (GOOD.replace('"docs"', '"prose"').encode(), 'band is "prose", not one of docs'),
        (GOOD.replace('"band": "docs", ', "").encode(), "line 1 has no band"),
        (b"\n" + GOOD.encode() + b"[1, 2]\n", "line 3 is [1, 2], not an object"),
        (GOOD.encode() + b'{"id": "q2",\n', "line 2 is not JSON (Expecting"),
        (GOOD.replace(', "heading": "Tuning"', "").encode(), "expected passage 1 is"),
        (GOOD.replace('"expected": [', '"expected": "').replace("}]}", '}"}').encode(), "expected"),
        (GOOD.split(', "expected"')[0].encode() + b', "expected": []}\n', "expected is empty"),
        (GOOD.replace("frobnication depth?", "w" * 5000).encode(), "5000 characters long"),
        (b"", "holds no questions"),
        (b"\n  \n", "holds no questions"),
    ],
)
def test_a_malformed_questions_file_is_a_usage_error_naming_the_line(
    estate, tmp_path, capsys, content, says
):
    questions = tmp_path / "questions.jsonl"
    questions.write_bytes(content)
    code, message = bench(capsys, questions, estate)
    assert code == 2
    assert says in message, message


def test_a_byte_order_mark_and_a_line_separator_in_a_string_are_read(estate, tmp_path, capsys):
    questions = tmp_path / "questions.jsonl"
    questions.write_bytes(b"\xef\xbb\xbf" + GOOD.replace("depth?", "depth\u2028?").encode())
    assert main(["bench", str(questions), "--repos", str(estate), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["bands"]["docs"]["n"] == 1


def test_repos_holding_no_repository_is_a_usage_error(home, tmp_path, capsys):
    questions = tmp_path / "questions.jsonl"
    questions.write_text(GOOD)
    nothing = tmp_path / "nothing"
    nothing.mkdir()
    code, message = bench(capsys, questions, nothing)
    assert code == 2
    assert "has nothing to index" in message and "holds no git repositories" in message
    assert "sources.local" not in message  # the benchmark's directory is --repos
    (nothing / "fresh").mkdir()
    git(nothing / "fresh", "init", "-q")
    code, message = bench(capsys, questions, nothing)
    assert code == 2
    assert "fresh has no commits yet" in message


def test_a_questions_file_or_repos_that_is_not_there_says_what_to_give(estate, tmp_path, capsys):
    questions = tmp_path / "questions.jsonl"
    code, message = bench(capsys, questions, estate)
    assert code == 2
    assert message == (
        f"Cannot read the questions file {questions} (No such file or directory): give the path "
        "of the JSON Lines file of questions to measure"
    )
    questions.write_text(GOOD)
    code, message = bench(capsys, questions, tmp_path / "nowhere")
    assert code == 2
    assert message.endswith(
        "nowhere is not a directory: give the directory that holds the benchmark's git repositories"
    )


def _keys(data: object) -> set[str]:
    """Every key of every object in ``data``, however deep."""
    if isinstance(data, dict):
        return set(data) | {k for value in data.values() for k in _keys(value)}
    if isinstance(data, list):
        return {k for item in data for k in _keys(item)}
    return set()


def test_every_key_bench_json_prints_is_in_the_reference(estate, tmp_path, capsys):
    # A miss and an unanswerable question, so that every part of the object has something in it.
    questions = tmp_path / "questions.jsonl"
    questions.write_text(
        GOOD
        + GOOD.replace('"q1"', '"q2"').replace('"Tuning"', '"Elsewhere"')
        + '{"id": 3, "band": "unanswerable", "question": "zzz?", "expected": []}\n'
    )
    assert main(["bench", str(questions), "--repos", str(estate), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["misses"] and data["unanswerable"]
    reference = (Path(__file__).resolve().parents[2] / "docs/reference/cli.md").read_text()
    section = reference.split("\n## bench:", 1)[1].split("\n## ", 1)[0]
    undocumented = sorted(k for k in _keys(data) if f'"{k}"' not in section)
    assert not undocumented, undocumented


def test_a_repository_that_fails_to_index_is_named_in_the_terminal_output(estate, tmp_path, capsys):
    make_repo(estate / "broken", {"README.md": "# Broken\n"})
    for obj in (estate / "broken" / ".git" / "objects").rglob("*"):
        if obj.is_file():
            obj.unlink()  # the commit the branch names can no longer be read
    questions = tmp_path / "questions.jsonl"
    questions.write_text(GOOD)
    assert main(["bench", str(questions), "--repos", str(estate)]) == 0
    out = capsys.readouterr().out
    assert "not indexed, so its questions count as misses: broken" in out
    assert main(["bench", str(questions), "--repos", str(estate), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["build"]["failed_sources"] == ["broken"]


@pytest.mark.parametrize("found", ["in the working directory", "through PHPBOTSCOUT_CONFIG"])
def test_bench_reads_no_configuration_so_a_broken_one_does_not_stop_it(
    estate, tmp_path, capsys, monkeypatch, found
):
    questions = tmp_path / "questions.jsonl"
    questions.write_text(GOOD)
    monkeypatch.delenv("PHPBOTSCOUT_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    if found == "in the working directory":
        (tmp_path / "phpbotscout.toml").write_text("[index\npath = \n")  # not TOML
    else:
        elsewhere = tmp_path / "elsewhere.toml"
        elsewhere.write_text('[answer]\nprovider = "no such provider"\n')
        monkeypatch.setenv("PHPBOTSCOUT_CONFIG", str(elsewhere))
    assert main(["bench", str(questions), "--repos", str(estate), "--json"]) == 0
    said = capsys.readouterr()
    assert json.loads(said.out)["bands"]["docs"]["n"] == 1
    assert said.err == ""  # a configuration bench was not given is ignored without a word
    assert main(["index", "status"]) == 2  # the same file stops a command that reads it


@pytest.mark.parametrize("where", ["before the command", "after the command"])
def test_a_config_given_to_bench_is_refused_saying_bench_reads_none(
    estate, tmp_path, capsys, where
):
    questions = tmp_path / "questions.jsonl"
    questions.write_text(GOOD)
    config = ["--config", str(tmp_path / "phpbotscout.toml")]  # no such file: never read
    bench_argv = ["bench", str(questions), "--repos", str(estate)]
    argv = config + bench_argv if where == "before the command" else bench_argv + config
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    said = capsys.readouterr()
    assert said.out == ""
    # bench's own usage, not the program's: the options it names are the ones to give instead.
    assert said.err.startswith("usage: python -m bot.cli bench [-h] --repos DIR"), said.err
    assert "python -m bot.cli bench: error: bench reads no configuration" in said.err
    assert "bench reads no configuration, so --config would be ignored" in said.err
    assert "--repos DIR, --retrieval bm25|hybrid" in said.err
    assert main([*argv, "--json"]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["kind"] == "usage" and "Leave out --config" in error["message"], error
    assert "Run 'python -m bot.cli bench --help'" in error["message"], error
