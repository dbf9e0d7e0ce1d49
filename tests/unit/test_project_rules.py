"""Rules about the project itself: documented commands, and an engine free of Discord."""

import argparse
import re
import subprocess
import sys
from pathlib import Path

from bot.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]


def _commands(parser: argparse.ArgumentParser, prefix: str = "") -> dict[str, str]:
    found: dict[str, str] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                full = f"{prefix}{name}"
                nested = _commands(sub, full + " ")
                if nested:
                    found.update(nested)
                else:
                    found[full] = helps.get(name, "")
    return found


def test_every_cli_command_has_help_and_a_scenario():
    features = "\n".join(p.read_text() for p in (ROOT / "features").glob("*.feature"))
    commands = _commands(build_parser())
    assert {"index build", "index sources", "index status", "ask", "bench"} <= set(commands)
    for command, help_text in commands.items():
        assert help_text, f"{command} has no help text"
        assert re.search(rf"python -m bot\.cli {command}\b", features), (
            f"no Gherkin scenario runs '{command}'"
        )


def test_every_cli_command_is_in_the_reference():
    reference = (ROOT / "docs/reference/cli.md").read_text()
    for command in _commands(build_parser()):
        assert re.search(rf"^## {command}(:|$)", reference, flags=re.M), command


def _sections(reference: str) -> dict[str, str]:
    """Each ``## heading`` section of a page by its heading; the text before them as ``""``.

    A heading says what its command does after a colon (``## ask: ask a question ...``): the
    section is keyed by the command alone.
    """
    head, *rest = re.split(r"^## ", reference, flags=re.M)
    return {"": head} | {part.split("\n", 1)[0].split(":", 1)[0]: part for part in rest}


def _options(parser: argparse.ArgumentParser, prefix: str = "") -> dict[str, list[str]]:
    """Each command's long options (the global ones under ``""``), ``--help`` aside."""
    found = {prefix.strip(): [o for a in parser._actions for o in a.option_strings]}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found |= _options(sub, f"{prefix}{name} ")
    return {
        command: [o for o in options if o.startswith("--") and o != "--help"]
        for command, options in found.items()
    }


def test_every_cli_option_is_in_its_commands_section_of_the_reference():
    sections = _sections((ROOT / "docs/reference/cli.md").read_text())
    for command, options in _options(build_parser()).items():
        if command == "index":  # a group of commands, with no option of its own
            continue
        for option in options:
            named = re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", sections[command])
            assert named, f"{command or 'the program'}: {option}"


def test_every_error_kind_a_json_command_prints_is_in_the_reference():
    from bot import errors

    kinds: set[str] = set()
    classes: list[type[errors.PhpbotscoutError]] = [errors.PhpbotscoutError]
    while classes:
        cls = classes.pop()
        kinds.add(cls.kind)
        classes += cls.__subclasses__()
    # The two bases are never raised as themselves, and serve, the one command with no
    # --json, is the only one that meets the rest.
    never_printed = {"error", "operational", "busy", "discord", "shutting_down"}
    reference = (ROOT / "docs/reference/cli.md").read_text()
    for kind in sorted(kinds - never_printed):
        assert f"`{kind}`" in reference, kind


def test_the_engine_imports_without_the_discord_stack():
    engine_modules = sorted(
        "bot." + ".".join(p.relative_to(ROOT / "bot").with_suffix("").parts)
        for p in (ROOT / "bot").rglob("*.py")
        if p.name != "__init__.py" and p.name != "app.py"
    )
    code = (
        "import importlib, sys\n"
        f"for name in {engine_modules!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = [m for m in ('hikari', 'lightbulb', 'apscheduler') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def _slash_commands() -> dict[str, str]:
    """Every slash command the extensions define, with its description."""
    import importlib

    from bot.app import EXTENSIONS

    found: dict[str, str] = {}
    for name in EXTENSIONS:
        module = importlib.import_module(name)
        for value in vars(module).values():
            data = getattr(value, "_command_data", None)
            if data is not None and isinstance(value, type):
                found[data.name] = data.description
    return found


def test_every_slash_command_has_a_description_a_scenario_and_a_docs_section():
    features = "\n".join(p.read_text() for p in (ROOT / "features").glob("*.feature"))
    docs = (ROOT / "docs/discord.md").read_text()
    commands = _slash_commands()
    assert set(commands) == {"ask", "sources", "status"}
    for name, description in commands.items():
        assert description, f"/{name} has no description"
        assert re.search(rf"^\s+When someone runs /{name}\b", features, re.M), (
            f"no Gherkin scenario runs /{name}"
        )
        assert f"## /{name}" in docs, f"docs/discord.md has no section for /{name}"


def test_the_held_out_benchmark_questions_are_well_formed():
    from bot.bench import load_questions

    questions = [
        *load_questions(ROOT / "benchmarks" / "validation_questions.jsonl"),
        *load_questions(ROOT / "benchmarks" / "blind_questions.jsonl"),
        *load_questions(ROOT / "benchmarks" / "polyglot" / "questions.jsonl"),
        *load_questions(ROOT / "benchmarks" / "polyglot" / "blind_questions.jsonl"),
    ]
    assert len({q.id for q in questions}) == len(questions) == 176
    for question in questions:
        assert question.band in ("docs", "code")
        for item in question.expected:
            assert item["repo"] and item["path"]
            assert ("heading" in item) != ("symbol" in item), question.id
