"""The command line, run in-process against real repositories and a real index file."""

import json
from pathlib import Path

import pytest

from bot.cli import build_parser, main
from tests.fakes.anthropic_server import KEY, citing
from tests.gitrepo import make_repo
from tests.pipes import run_cli

PAGE = (
    "# Widgets\n\nAbout widgets.\n\n"
    "## Tuning the frobnicator\n\nSet the frobnication depth to seven.\n"
)


@pytest.fixture
def configured(home: Path, tmp_path: Path) -> Path:
    make_repo(tmp_path / "estate" / "widgets", {"docs/guide.md": PAGE, "README.md": "# W\n\nHi.\n"})
    (tmp_path / "phpbotscout.toml").write_text(
        f'[sources]\nlocal = ["{tmp_path / "estate"}"]\n[index]\npath = "index.sqlite"\n'
    )
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_retrieval_only_json_is_the_documented_contract(configured, capsys):
    assert run(capsys, "index", "build")[0] == 0
    code, out, _ = run(capsys, "ask", "frobnication depth", "--retrieval-only", "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"question", "query", "results"}
    first = data["results"][0]
    assert set(first) == {
        "rank",
        "score",
        "repo",
        "path",
        "kind",
        "heading",
        "heading_path",
        "anchor",
        "symbol",
        "start_line",
        "end_line",
        "url",
        "commit",
        "text",
    }
    assert (first["rank"], first["repo"], first["heading"]) == (
        1,
        "widgets",
        "Tuning the frobnicator",
    )
    assert first["heading_path"] == ["Widgets", "Tuning the frobnicator"]
    assert first["text"].startswith("## Tuning the frobnicator")
    assert first["score"] > 0


def test_limit_bounds_the_passages(configured, capsys):
    run(capsys, "index", "build")
    _, out, _ = run(
        capsys, "ask", "widgets frobnicator", "--retrieval-only", "--json", "--limit", "1"
    )
    assert len(json.loads(out)["results"]) == 1


def test_without_a_model_ask_prints_passages_and_says_so(configured, capsys):
    run(capsys, "index", "build")
    code, out, _ = run(capsys, "ask", "frobnication depth")
    assert code == 0
    assert "No model is configured" in out
    assert "widgets/docs/guide.md#L5-L7" in out


def test_an_empty_index_is_refused_with_how_to_build_it(configured, capsys):
    code, _, err = run(capsys, "ask", "anything")
    assert code == 1
    assert "index build" in err


def test_errors_are_json_with_json(configured, capsys):
    code, out, _ = run(capsys, "ask", "anything", "--json")
    assert code == 1
    assert json.loads(out)["error"]["kind"] == "empty_index"


def test_sources_and_status_json(configured, capsys):
    run(capsys, "index", "build")
    _, out, _ = run(capsys, "index", "sources", "--json")
    assert json.loads(out) == [
        {
            "source": "widgets",
            "verdict": "admitted",
            "clause": "local",
            "detail": "listed in sources.local",
            "last_error": None,
            "release_error": None,
        }
    ]
    _, out, _ = run(capsys, "index", "status", "--json")
    status = json.loads(out)
    row = status["sources"][0]
    assert row["source"] == "widgets"
    assert row["stale"] is False
    assert row["documents"] == 2
    assert status["totals"]["chunks"] >= 2


def test_human_output_has_tables(configured, capsys):
    code, out, _ = run(capsys, "index", "build")
    assert code == 0
    assert "widgets" in out
    assert "indexed" in out
    _, out, _ = run(capsys, "index", "status")
    assert "1 sources" in out


def test_a_bad_configuration_exits_2_naming_the_key(configured, capsys):
    (configured / "phpbotscout.toml").write_text('[answer]\nprovider = "gpt-7"\n')
    code, _, err = run(capsys, "index", "status")
    assert code == 2
    assert "answer.provider" in err
    assert "gpt-7" in err


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["ask"])
    assert caught.value.code == 2


def test_every_command_has_help():
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for name, sub in commands.items():
        assert sub.description or parser._subparsers._group_actions[0]._choices_actions, name
    helps = {a.dest: a.help for a in parser._subparsers._group_actions[0]._choices_actions}
    assert all(helps.values()), helps


def test_status_with_no_source_qualifying_points_to_the_reasons(configured, capsys):
    config = configured / "phpbotscout.toml"
    config.write_text(
        config.read_text().replace("[sources]\n", '[sources]\nexclude = ["widgets"]\n')
    )
    assert run(capsys, "index", "build")[0] == 0
    code, out, _ = run(capsys, "index", "status")
    assert code == 0
    assert "none qualifies" in out
    assert "python -m bot.cli index sources" in out
    assert "index build" not in out


def test_ask_with_no_source_qualifying_points_to_the_reasons_not_to_a_build(configured, capsys):
    config = configured / "phpbotscout.toml"
    config.write_text(
        config.read_text().replace("[sources]\n", '[sources]\nexclude = ["widgets"]\n')
    )
    assert run(capsys, "index", "build")[0] == 0
    code, out, _ = run(capsys, "ask", "anything", "--json")
    assert code == 1
    error = json.loads(out)["error"]
    assert error["kind"] == "empty_index"
    assert "python -m bot.cli index sources" in error["message"]
    assert "index build" not in error["message"]  # building again would decide the same


def test_status_and_sources_before_any_build_say_how_to_build(configured, capsys):
    for command in (["index", "status"], ["index", "sources"]):
        code, out, _ = run(capsys, *command)
        assert code == 0
        assert "python -m bot.cli index build" in out


TITLE = "\x1b]0;pwned\x07"  # sets the terminal's title
HIDDEN = "\x1b[8mhidden\x1b[0m"  # concealed text
CSI = "\x9b2J"  # the C1 form of an escape sequence: clears the screen
REVERSED = "\u2067\u202edepth\u202c\u2069"  # shown right to left: "htped"
RAW = ("\x1b", "\x07", "\x9b", "\u2067", "\u202e", "\u202c", "\u2069")
HOSTILE = (
    f"# Frobnicator {TITLE}\n\n## Tuning the frobnicator {HIDDEN}{REVERSED}\n\n"
    f"Set the frobnication depth to seven. {TITLE} {HIDDEN} {CSI}\r\nDone.\n"
)


@pytest.fixture
def hostile(home: Path, tmp_path: Path) -> Path:
    """A repository whose name, file path, headings and text carry terminal escapes.

    Its name and a heading also reverse a word, as a bidirectional override shows it.
    """
    make_repo(tmp_path / "estate" / f"widgets{TITLE}{REVERSED}", {f"docs/{HIDDEN}.md": HOSTILE})
    (tmp_path / "phpbotscout.toml").write_text(
        f'[sources]\nlocal = ["{tmp_path / "estate"}"]\n[index]\npath = "index.sqlite"\n'
    )
    return tmp_path


def assert_inert(out: str) -> None:
    assert not any(raw in out for raw in RAW), repr(out)


def test_terminal_output_shows_escapes_from_the_index_and_never_sends_them(hostile, capsys):
    code, out, _ = run(capsys, "index", "build")
    assert code == 0
    assert_inert(out)
    code, out, _ = run(capsys, "index", "sources")
    assert code == 0 and "widgets\\x1b]0;pwned\\x07" in out
    assert_inert(out)
    code, out, _ = run(capsys, "index", "status")
    assert code == 0 and "1 sources" in out
    assert_inert(out)
    for extra in (["--retrieval-only"], []):
        code, out, _ = run(capsys, "ask", "frobnication depth", *extra)
        assert code == 0
        assert_inert(out)
        assert "Tuning the frobnicator \\x1b[8mhidden\\x1b[0m\\u2067\\u202edepth" in out
        assert "\\x1b]0;pwned\\x07" in out
    code, out, _ = run(capsys, "ask", "zyzzyva \x1b[Kquux\x07")
    assert code == 0 and "nothing in the index matches" in out
    code, out, _ = run(capsys, "gaps")
    assert "zyzzyva \\x1b[Kquux\\x07" in out
    assert_inert(out)


def test_an_answer_from_a_model_is_shown_without_its_escapes(
    hostile, capsys, fake_anthropic, monkeypatch
):
    config = hostile / "phpbotscout.toml"
    config.write_text(config.read_text() + '[answer]\nprovider = "anthropic"\ntimeout = "5s"\n')
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_anthropic.url)
    run(capsys, "index", "build")
    fake_anthropic.script(citing(f"Seven. {HIDDEN}{CSI}", "Tuning the frobnicator"))
    code, out, _ = run(capsys, "ask", "frobnication depth")
    assert code == 0
    assert "Seven. \\x1b[8mhidden\\x1b[0m\\x9b2J" in out
    assert_inert(out)


def test_json_escapes_every_control_character_and_reads_back_unchanged(hostile, capsys):
    run(capsys, "index", "build")
    for extra in (["--retrieval-only", "--json"], ["--json"]):
        code, out, _ = run(capsys, "ask", "frobnication depth", *extra)
        assert code == 0
        assert_inert(out)
        data = json.loads(out)
        first = (data.get("results") or data["passages"])[0]
        assert first["repo"] == f"widgets{TITLE}{REVERSED}"
        assert first["path"] == f"docs/{HIDDEN}.md"
        assert first["heading"] == f"Tuning the frobnicator {HIDDEN}{REVERSED}"
        assert CSI in first["text"]


def test_log_lines_show_escapes_from_a_repository_and_never_send_them(hostile):
    done = run_cli(["--verbose", "index", "build"], cwd=hostile)
    assert done.returncode == 0, done.stderr
    assert_inert(done.stdout + done.stderr)
    assert (
        "INFO bot.refresh: refreshed widgets\\x1b]0;pwned\\x07\\u2067\\u202edepth\\u202c\\u2069: "
        "indexed"
    ) in done.stderr.splitlines()


def test_a_line_break_from_a_repository_never_starts_a_log_line_of_its_own(home, tmp_path):
    estate = tmp_path / "estate"
    make_repo(estate / "widgets\nINFO bot.refresh: refreshed forged: indexed", {"README.md": "x"})
    damaged = estate / "gadgets\r\nERROR bot.cli: forged"
    head = make_repo(damaged, {"README.md": "# Gadgets\n"})
    (damaged / ".git" / "objects" / head[:2] / head[2:]).unlink()  # its refresh fails, logged
    (tmp_path / "phpbotscout.toml").write_text(
        f'[sources]\nlocal = ["{estate}"]\n[index]\npath = "index.sqlite"\n'
    )
    done = run_cli(["--verbose", "index", "build"], cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.splitlines()
    assert "INFO bot.refresh: refreshed forged: indexed" not in lines
    assert not any(line.startswith("ERROR bot.cli: forged") for line in lines), lines
    widgets = "widgets\\x0aINFO bot.refresh: refreshed forged: indexed"
    assert f"INFO bot.refresh: refreshed {widgets}: indexed" in lines
    gadgets = "gadgets\\x0d\\x0aERROR bot.cli: forged"
    assert any(
        line.startswith(f"WARNING bot.refresh: refresh of {gadgets} failed: {estate}/{gadgets} ")
        for line in lines
    ), lines


def test_a_refresh_interval_for_no_source_is_a_warning_naming_it(configured, capsys):
    config = configured / "phpbotscout.toml"
    config.write_text(
        config.read_text()
        + '[sources.refresh_intervals]\nWidgets = "1h"\nwidgest = "1m"\nzzz = "1d"\n'
    )
    code, out, err = run(capsys, "index", "build", "--json")
    assert code == 0
    assert json.loads(out)["sources"]  # stdout stays one JSON document
    lines = err.splitlines()
    assert lines == [
        "warning: sources.refresh_intervals names 'widgest', but no source is called that "
        "(did you mean 'widgets'?), so its interval applies to nothing. Correct the name or "
        "remove it.",
        "warning: sources.refresh_intervals names 'zzz', but no source is called that, so its "
        "interval applies to nothing. Correct the name or remove it.",
    ]
    for argv in (("index", "sources"), ("index", "sources", "--json")):
        code, _, again = run(capsys, *argv)
        assert code == 0 and again == err
    # index status and ask stay quiet about it: the two commands about sources say it.
    assert run(capsys, "index", "status")[2] == ""


def test_before_any_source_is_known_no_interval_is_called_unmatched(configured, capsys):
    config = configured / "phpbotscout.toml"
    config.write_text(config.read_text() + '[sources.refresh_intervals]\nwidgets = "1h"\n')
    code, out, err = run(capsys, "index", "sources")
    assert code == 0 and "index build" in out and err == ""


def test_gaps_since_at_the_calendar_edge_is_a_usage_error(configured, capsys):
    code, out, err = run(capsys, "gaps", "--since", "9999-12-31T23:59-01:00", "--json")
    assert code == 2
    assert json.loads(out)["error"]["kind"] == "usage"
    code, out, err = run(capsys, "gaps", "--since", "0001-01-01T00:00+01:00")
    assert code == 2
    assert err.startswith("error: --since") and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["ask", "x", "--json", "--limit", "0"], "must be 1 or more, not 0"),
        (["ask", "x", "--json", "--limit", "abc"], "'abc' is not a whole number"),
        (["ask", "--json"], "required: question"),
        (["index", "build", "--json", "--bogus"], "unrecognized arguments: --bogus"),
        (["gaps", "--js", "--since"], "--since: expected one argument"),
    ],
)
def test_command_line_mistakes_with_json_are_one_json_error(capsys, argv, says):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert err == ""
    error = json.loads(out)["error"]
    assert error["kind"] == "usage"
    assert says in error["message"] and "--help" in error["message"]


def test_command_line_mistakes_without_json_still_show_the_usage(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["ask", "x", "--limit", "0", "--", "--json"])
    assert caught.value.code == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err.startswith("usage: python -m bot.cli ask")


@pytest.mark.parametrize(
    ("question", "says"),
    [
        ("", "The question is empty"),
        (" \n ", "The question is empty"),
        ("w" * 60_000, "4000 at most"),
        # A byte that is not UTF-8 on the command line arrives as a lone surrogate.
        ("frobnication depth \udcff", "bytes that are not UTF-8"),
    ],
)
@pytest.mark.parametrize("mode", [["--retrieval-only"], []])
def test_ask_refuses_the_same_questions_with_or_without_retrieval_only(
    configured, capsys, question, says, mode
):
    run(capsys, "index", "build")
    code, out, _ = run(capsys, "ask", question, *mode, "--json")
    assert code == 2
    error = json.loads(out)["error"]
    assert error["kind"] == "usage" and says in error["message"]
    code, _, err = run(capsys, "ask", question, *mode)
    assert code == 2 and says in err


def test_retrieval_only_asks_the_question_without_its_surrounding_space(configured, capsys):
    run(capsys, "index", "build")
    _, out, _ = run(capsys, "ask", "  frobnication depth \n", "--retrieval-only", "--json")
    assert json.loads(out)["question"] == "frobnication depth"


def test_build_json_lists_the_sources_not_indexed_as_the_table_does(configured, capsys):
    make_repo(configured / "estate" / "gamma", {"README.md": "# Gamma\n\nGamma.\n"})
    config = configured / "phpbotscout.toml"
    config.write_text(config.read_text().replace("[sources]\n", '[sources]\nexclude = ["gamma"]\n'))
    code, out, _ = run(capsys, "index", "build", "--json")
    assert code == 0
    data = json.loads(out)
    assert {"sources", "removed", "clones_deleted", "errors", "seconds"} <= set(data)
    assert data["not_indexed"] == [
        {
            "source": "gamma",
            "verdict": "rejected",
            "clause": "excluded",
            "detail": "listed in sources.exclude",
        }
    ]
    _, table, _ = run(capsys, "index", "build")
    assert "not indexed: gamma — rejected (excluded): listed in sources.exclude" in table


def test_build_of_a_named_source_that_is_excluded_says_so_and_refreshes_nothing(configured, capsys):
    make_repo(configured / "estate" / "gamma", {"README.md": "# Gamma\n\nGamma.\n"})
    config = configured / "phpbotscout.toml"
    config.write_text(config.read_text().replace("[sources]\n", '[sources]\nexclude = ["gamma"]\n'))
    code, out, _ = run(
        capsys, "index", "build", "--source", "widgets", "--source", "gamma", "--json"
    )
    assert code == 2
    error = json.loads(out)["error"]
    assert error["kind"] == "usage"
    assert (
        "gamma is not indexed: rejected (excluded): listed in sources.exclude" in error["message"]
    )
    assert "python -m bot.cli index sources" in error["message"]
    code, _, err = run(capsys, "index", "build", "--source", "gamma")
    assert code == 2 and err.startswith("error: gamma is not indexed")
    _, out, _ = run(capsys, "index", "status", "--json")
    (widgets,) = json.loads(out)["sources"]  # named too, and not refreshed
    assert (widgets["source"], widgets["indexed_at"], widgets["documents"]) == ("widgets", None, 0)


def test_build_of_a_source_named_in_other_letter_case_refreshes_it_under_its_own_name(
    configured, capsys
):
    make_repo(configured / "estate" / "gadgets", {"README.md": "# Gadgets\n\nGizmos.\n"})
    code, out, _ = run(capsys, "index", "build", "--source", "WIDGETS", "--json")
    assert code == 0
    assert [s["source"] for s in json.loads(out)["sources"]] == ["widgets"]
    _, out, _ = run(capsys, "index", "status", "--json")
    indexed = {s["source"]: s["indexed_at"] for s in json.loads(out)["sources"]}
    assert indexed["widgets"] is not None and indexed["gadgets"] is None
    code, table, _ = run(capsys, "index", "build", "--source", "Widgets/")
    assert code == 0 and "widgets" in table and "Widgets" not in table


def test_build_of_sources_apart_by_letter_case_alone_needs_the_exact_spelling(configured, capsys):
    # A case-sensitive filesystem holds both; each is its own source.
    make_repo(configured / "more" / "Tools", {"README.md": "# Tools\n\nHammers.\n"})
    make_repo(configured / "estate" / "tools", {"README.md": "# tools\n\nSpanners.\n"})
    config = configured / "phpbotscout.toml"
    config.write_text(config.read_text().replace('"]\n', f'", "{configured / "more"}"]\n', 1))
    code, out, _ = run(capsys, "index", "build", "--source", "TOOLS", "--json")
    assert code == 2
    assert json.loads(out)["error"]["message"] == (
        "More than one source is called TOOLS (Tools, tools), in letter case alone. Give the "
        "name spelled exactly as 'python -m bot.cli index sources' shows it."
    )
    _, out, _ = run(capsys, "index", "status", "--json")
    # Refused once the verdicts were recorded (so `index sources` lists both), before anything
    # was indexed.
    assert {s["source"]: s["indexed_at"] for s in json.loads(out)["sources"]} == {
        "Tools": None,
        "tools": None,
        "widgets": None,
    }
    code, out, _ = run(capsys, "index", "build", "--source", "tools", "--json")
    assert code == 0
    assert [s["source"] for s in json.loads(out)["sources"]] == ["tools"]
    _, out, _ = run(capsys, "ask", "spanners", "--retrieval-only", "--json")
    assert {r["repo"] for r in json.loads(out)["results"]} == {"tools"}


def test_build_of_a_named_source_that_is_unresolved_says_so(home, tmp_path, capsys):
    make_repo(tmp_path / "solo", {"README.md": "# Solo\n\nSprockets spin.\n"})
    config = tmp_path / "phpbotscout.toml"
    config.write_text(f'[sources]\nlocal = ["{tmp_path / "solo"}"]\n[index]\npath = "i.sqlite"\n')
    assert run(capsys, "index", "build")[0] == 0
    (tmp_path / "solo").rename(tmp_path / "moved")
    code, out, _ = run(capsys, "index", "build", "--source", "solo", "--json")
    assert code == 1
    error = json.loads(out)["error"]
    assert error["kind"] == "source"
    assert error["message"].startswith("solo cannot be refreshed: unresolved (missing): ")


def test_status_shows_a_source_answered_from_its_last_index_as_unresolved(home, tmp_path, capsys):
    make_repo(tmp_path / "solo", {"README.md": "# Solo\n\nSprockets spin.\n"})
    config = tmp_path / "phpbotscout.toml"
    config.write_text(f'[sources]\nlocal = ["{tmp_path / "solo"}"]\n[index]\npath = "i.sqlite"\n')
    run(capsys, "index", "build")
    (tmp_path / "solo").rename(tmp_path / "moved")
    run(capsys, "index", "build")
    _, out, _ = run(capsys, "index", "status", "--json")
    status = json.loads(out)
    (row,) = status["sources"]
    assert (row["verdict"], row["clause"]) == ("unresolved", "missing")
    assert (
        row["detail"]
        == f"{tmp_path / 'solo'} does not exist: correct or remove the path in sources.local"
    )
    assert row["documents"] == 1
    assert status["totals"]["unresolved"] == 1
    _, out, _ = run(capsys, "index", "status")
    assert "1 unresolved" in out


def test_status_shows_an_unresolved_source_never_indexed_and_what_to_do(
    home, tmp_path, capsys, monkeypatch
):
    make_repo(tmp_path / "solo", {"README.md": "# Solo\n\nSprockets spin.\n"})
    config = tmp_path / "phpbotscout.toml"
    listed = f'local = ["{tmp_path / "solo"}", "{tmp_path / "gone"}"]'
    config.write_text(f'[sources]\n{listed}\n[index]\npath = "i.sqlite"\n')
    assert run(capsys, "index", "build")[0] == 0
    _, out, _ = run(capsys, "index", "status", "--json")
    status = json.loads(out)
    rows = {row["source"]: row for row in status["sources"]}
    gone = rows[f"gone (missing at {tmp_path / 'gone'})"]
    assert (gone["verdict"], gone["clause"], gone["documents"]) == ("unresolved", "missing", 0)
    assert status["totals"]["unresolved"] == 1
    monkeypatch.setenv("COLUMNS", "1000")  # wide enough that no cell wraps
    _, out, _ = run(capsys, "index", "status")
    assert "1 unresolved" in out
    assert (
        f"{tmp_path / 'gone'} does not exist: correct or remove the path in sources.local; it "
        "has never been indexed"
    ) in out
    assert "never been indexed, so nothing is answered from it" in out
    assert "'python -m bot.cli index build' indexes it" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["index", "status"],
        ["index", "sources", "--json"],
        ["gaps"],
        ["gaps", "--since", "2026-11-30", "--json"],
        ["ask", "frobnication depth"],
        ["ask", "frobnication depth", "--retrieval-only", "--json"],
    ],
    ids=" ".join,
)
def test_reading_commands_create_no_index_at_a_path_where_there_is_none(configured, capsys, argv):
    config = configured / "phpbotscout.toml"
    config.write_text(config.read_text().replace('"index.sqlite"', '"indx/index.sqlite"'))
    before = sorted(configured.rglob("*"))
    code, out, err = run(capsys, *argv)
    assert sorted(configured.rglob("*")) == before  # not the file, nor its directory
    said = json.loads(out)["error"]["message"] if "--json" in argv and code else out + err
    if argv[0] == "ask":
        assert code == 1
    else:
        assert code == 0
    if "--json" not in argv or code:
        assert f"No index exists at {configured / 'indx' / 'index.sqlite'} yet" in said
        assert "python -m bot.cli index build" in said and str(config) in said


def test_reading_commands_without_an_index_give_the_empty_json_they_give_before_a_build(
    configured, capsys
):
    _, out, _ = run(capsys, "index", "status", "--json")
    assert json.loads(out) == {
        "sources": [],
        "totals": {
            "sources": 0,
            "documents": 0,
            "chunks": 0,
            "stale": 0,
            "failing": 0,
            "unresolved": 0,
            "release_errors": 0,
            "chunks_without_vectors": None,
        },
        "listing_failure": None,
    }
    _, out, _ = run(capsys, "gaps", "--json")
    assert json.loads(out) == {"since": None, "declines": 0, "groups": []}
    assert not (configured / "index.sqlite").exists()
