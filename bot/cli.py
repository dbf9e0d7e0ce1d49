"""``python -m bot.cli``: parse, call the engine, print. Nothing else lives here.

Exit codes: 0 answered or declined (a decline is a result), 1 something broke, 2 the command
line or configuration is wrong, 130 interrupted (Ctrl-C), 141 the reader of the output went
away (as SIGPIPE would end it), 143 stopped by SIGTERM.
"""

from __future__ import annotations

from bot import sigterm

if __name__ == "__main__":
    # Run as a program: SIGTERM is held from here, before the imports below, which are most of
    # start-up, so that one arriving meanwhile stops the command as a later one does.
    sigterm.hold()

import argparse
import contextlib
import errno
import logging
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from bot import bench, event_loop, render
from bot import config as config_module
from bot.answer.backlog import parse_since
from bot.config import RETRIEVAL_MODES, Config
from bot.engine import Engine, checked_question
from bot.errors import EmptyIndexError, PhpbotscoutError
from bot.index.catalog import ListingFailure, SourceState
from bot.refresh import RefreshReport, SourceOutcome


class _ArgumentsError(Exception):
    """A command-line mistake argparse found, held until ``main`` knows how to report it."""

    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(message)
        self.parser = parser
        self.message = message


class _Parser(argparse.ArgumentParser):
    """An argument parser that leaves reporting its errors to ``main``.

    argparse prints usage to stderr and exits, which breaks the promise that with ``--json``
    every error is one JSON object on stdout. Subparsers are made of this class too.
    """

    def error(self, message: str) -> NoReturn:
        raise _ArgumentsError(self, message)


def _wants_json(argv: Sequence[str]) -> bool:
    """Whether the command line asks for JSON, read before it has been parsed."""
    options = list(argv)
    if "--" in options:  # what follows is positional, however it looks
        options = options[: options.index("--")]
    # argparse takes any unambiguous prefix of an option, and only --json starts with --j.
    return any(len(t) > 2 and t.startswith("--j") and "--json".startswith(t) for t in options)


def build_parser() -> argparse.ArgumentParser:
    """The command line, with help text for every command."""
    parser = _Parser(
        prog="python -m bot.cli",
        description="Answer questions about your software from its own docs and code.",
    )
    parser.add_argument("--config", metavar="PATH", help="configuration file (TOML)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    index = commands.add_parser("index", help="build and inspect the index")
    index_commands = index.add_subparsers(dest="index_command", required=True, metavar="ACTION")
    build = index_commands.add_parser(
        "build", help="discover sources, fetch them and index what changed"
    )
    build.add_argument(
        "--source", action="append", default=[], metavar="NAME", help="refresh only this source"
    )
    build.add_argument("--force", action="store_true", help="re-read every file, changed or not")
    build.add_argument("--json", action="store_true", help="print one JSON object")
    sources = index_commands.add_parser(
        "sources", help="every candidate source, its verdict and the clause that decided it"
    )
    sources.add_argument("--json", action="store_true", help="print a JSON array")
    status = index_commands.add_parser(
        "status", help="per source: commits indexed, when, staleness and the last error"
    )
    status.add_argument("--json", action="store_true", help="print one JSON object")

    ask = commands.add_parser("ask", help="answer a question from the index, with citations")
    ask.add_argument("question", help="the question, in quotes")
    ask.add_argument(
        "--retrieval-only", action="store_true", help="print the ranked passages, compose nothing"
    )
    ask.add_argument("--json", action="store_true", help="print one JSON object")
    ask.add_argument(
        "--limit", type=_positive_int, default=8, metavar="N", help="passages to retrieve (8)"
    )

    gaps = commands.add_parser(
        "gaps", help="declined questions, grouped by kind: the documentation-gap backlog"
    )
    gaps.add_argument(
        "--since", metavar="DATE", help="only questions asked on or after DATE (2026-11-30)"
    )
    gaps.add_argument("--json", action="store_true", help="print one JSON object")

    commands.add_parser(
        "serve",
        help="run the Discord bot (/ask, /sources, /status) with the scheduled refresh "
        "and, when configured, the push webhook",
    )

    bench_cmd = commands.add_parser("bench", help="run the retrieval benchmark")
    bench_cmd.add_argument("questions", type=Path, help="questions file (JSON Lines)")
    bench_cmd.add_argument(
        "--repos", type=Path, required=True, metavar="DIR", help="directory of git repositories"
    )
    bench_cmd.add_argument(
        "--retrieval",
        choices=RETRIEVAL_MODES,
        default="bm25",
        help="retrieval mode to measure (hybrid needs the embed extra)",
    )
    bench_cmd.add_argument("--json", action="store_true", help="print one JSON object")
    # Not an option of bench: taken after the command too, only to be refused with the reason
    # (see _main) rather than as an unrecognized argument. SUPPRESS keeps a global --config.
    bench_cmd.add_argument("--config", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    # The refusal is reported with bench's own usage, which only this parser knows; a --config
    # before the command is known only once the whole line is parsed, outside this parser.
    bench_cmd.set_defaults(command_parser=bench_cmd)
    return parser


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a whole number; give 1 or more"
        ) from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


# ---------------------------------------------------------------------------------------------


class _BarProgress:
    """Draws one bar per source on a terminal."""

    def __init__(self, bar: Progress) -> None:
        self._bar = bar
        self._task: Any = None

    def source_started(self, name: str) -> None:
        self._task = self._bar.add_task(_shown(name), total=None)

    def file_read(self, name: str, path: str) -> None:
        self._bar.advance(self._task)

    def source_finished(self, outcome: SourceOutcome) -> None:
        self._bar.update(
            self._task,
            total=1,
            completed=1,
            description=f"{_shown(outcome.name)}: {outcome.status}",
        )


async def cmd_index_build(engine: Engine, args: argparse.Namespace, out: Console) -> int:
    """Refresh the index; exit 1 when any source failed."""
    if out.is_terminal and not args.json:
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
        with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
            report = await engine.refresh(args.source, force=args.force, progress=_BarProgress(bar))
    else:
        report = await engine.refresh(args.source, force=args.force)
    if args.json:
        _print_json(render.refresh_json(report))
    else:
        _print_build_summary(report, out)
    await _warn_unmatched_intervals(engine)
    return 0 if report.ok else 1


async def _warn_unmatched_intervals(engine: Engine) -> None:
    """Say which ``sources.refresh_intervals`` entries apply to nothing (a typo, usually).

    On standard error, so that ``--json`` output stays one parsable document.
    """
    for warning in await engine.unmatched_interval_warnings():
        print(render.terminal_safe(f"warning: {warning}"), file=sys.stderr)


def _print_build_summary(report: RefreshReport, out: Console) -> None:
    table = Table(title=f"index build — {report.seconds:.1f} s")
    for column in ("source", "status", "written", "kept", "chunks", "skipped", "seconds"):
        table.add_column(column, justify="left" if column in ("source", "status") else "right")
    for o in report.outcomes:
        table.add_row(
            _shown(o.name),
            o.status,
            str(o.written),
            str(o.kept),
            str(o.chunks),
            str(o.skipped),
            f"{o.seconds:.2f}",
        )
    out.print(table)
    for candidate in report.candidates:
        if not candidate.admitted:
            out.print(
                f"not indexed: {_shown(candidate.name)} — {candidate.verdict.value} "
                f"({candidate.clause}): {_shown(candidate.detail)}"
            )
    for name in report.removed:
        out.print(f"removed: {_shown(name)} (no longer configured)")
    respelled = dict(report.respelled)
    for old, new in report.respelled:
        out.print(
            f"renamed: {_shown(old)} is now {_shown(new)} in GitLab, in letter case only: one "
            "source, under the new name"
        )
    for name in report.clones_deleted:
        why = f"now {_shown(respelled[name])}" if name in respelled else "no longer qualifies"
        out.print(f"clone deleted: {_shown(name)} ({why})")
    for o in report.failed:
        out.print(f"[red]failed[/red]: {_shown(o.name)}: {_shown(o.error or '')}")
    for error in report.errors:
        out.print(f"[red]error[/red]: {_shown(error)}")


async def cmd_index_sources(engine: Engine, args: argparse.Namespace, out: Console) -> int:
    """Print every candidate source's verdict."""
    states = await engine.sources()
    failed = _listing_failed(engine, await engine.listing_failure(), states)
    if args.json:
        _print_json(render.sources_json(states))
        if failed is not None:  # on standard error: the JSON stays the list it always was
            print(render.terminal_safe(f"warning: {failed}"), file=sys.stderr)
        await _warn_unmatched_intervals(engine)
        return 0
    if not states:
        out.print(
            f"No sources known yet. {_shown(failed)}"
            if failed is not None
            else "No sources known yet. Run 'python -m bot.cli index build' to discover them."
        )
        return 0
    table = Table(title="sources")
    for column in ("source", "verdict", "clause", "detail"):
        table.add_column(column)
    for s in states:
        table.add_row(_shown(s.name), s.verdict, s.clause, _shown(s.detail))
    out.print(table)
    # A failed refresh and a failed release lookup decide what of a source is indexed as its
    # verdict does (an admitted source whose first clone failed holds nothing; code is held
    # back at its release), so each is said here as index status says it; the verdict's own
    # detail is in the table.
    _print_problems(out, states, verdict=False)
    if failed is not None:
        out.print(f"[red]listing failed[/red]: {_shown(failed)}")
    await _warn_unmatched_intervals(engine)
    return 0


def _print_problems(out: Console, states: Sequence[SourceState], *, verdict: bool) -> None:
    """Each source's problems, in full, below the table of sources (``verdict``: unresolved too).

    In a column beside eight others, a sentence of advice wraps a word to a line on an
    80-column terminal; below the table it reads as the sentence it is.
    """
    for state in states:
        for kind, text in render.source_problems(state, verdict=verdict):
            out.print(f"[red]{kind}[/red]: {_shown(state.name)}: {_shown(text)}")


def _listing_failed(
    engine: Engine, failure: ListingFailure | None, states: Sequence[SourceState]
) -> str | None:
    """What to say of the last build's failed GitLab listing, or ``None`` when it worked."""
    if failure is None:
        return None
    return render.listing_failure_text(
        failure, engine.config.gitlab_api_url, states, datetime.now(UTC)
    )


async def cmd_index_status(engine: Engine, args: argparse.Namespace, out: Console) -> int:
    """Print each source's freshness, and whether GitLab discovery failed in the last build."""
    statuses = await engine.status()
    failure = await engine.listing_failure()
    data = render.status_json(statuses, await engine.unembedded(), failure)
    if args.json:
        _print_json(data)
        return 0
    states = await engine.sources()
    # Every index time can look recent while no project has been discovered for days.
    failed = _listing_failed(engine, failure, states)
    if not statuses:
        if failed is not None and not states:
            out.print(f"Nothing is indexed yet. {_shown(failed)}")
            return 0
        if states:  # built, but no source is answered from
            out.print(
                "No source is indexed: none qualifies. "
                "Run 'python -m bot.cli index sources' to see why each one was left out."
            )
            if failed is not None:
                out.print(f"[red]listing failed[/red]: {_shown(failed)}")
        else:
            out.print(
                "Nothing is indexed yet. Run 'python -m bot.cli index build' to build the index."
            )
        return 0
    table = Table(title="index status")
    columns = ("source", "commit", "release", "indexed", "refreshed", "stale", "docs", "chunks")
    for column in columns:
        table.add_column(column)
    for s in statuses:
        table.add_row(
            _shown(s.state.name),
            render.short_commit(s.state.branch_commit),
            _shown(s.state.release_tag or render.short_commit(s.state.release_commit)),
            render.when_text(s.state.indexed_at),
            render.when_text(s.state.refreshed_at),
            f"yes (every {render.age_text(s.interval)})" if s.stale else "no",
            str(s.state.documents),
            str(s.state.chunks),
        )
    out.print(table)
    _print_problems(out, [s.state for s in statuses], verdict=True)
    t = data["totals"]
    out.print(
        f"{t['sources']} sources, {t['documents']} documents, {t['chunks']} chunks; "
        f"{t['stale']} stale, {t['failing']} failing, {t['unresolved']} unresolved, "
        f"{t['release_errors']} with a release lookup error"
    )
    if unembedded := render.unembedded_text(t["chunks_without_vectors"], t["chunks"]):
        out.print(unembedded)
    if failed is not None:
        out.print(f"[red]listing failed[/red]: {_shown(failed)}")
    return 0


async def cmd_ask(engine: Engine, args: argparse.Namespace, out: Console) -> int:
    """Answer a question, or decline it (exit 0 either way)."""
    # Before anything is built: a question that cannot be asked is refused as it is.
    checked_question(args.question)
    await engine.ensure_ready()
    if args.retrieval_only:
        retrieval = await engine.retrieve(args.question, args.limit)
        if args.json:
            _print_json(render.retrieval_json(retrieval))
        else:
            print(render.terminal_safe(render.retrieval_text(retrieval)))
        return 0
    outcome = await engine.ask(args.question, args.limit)
    if args.json:
        _print_json(render.outcome_json(outcome))
    else:
        print(render.terminal_safe(render.outcome_text(outcome)))
    return 0


async def cmd_gaps(engine: Engine, args: argparse.Namespace, out: Console) -> int:
    """List declined questions: the documentation-gap backlog."""
    since = parse_since(args.since) if args.since else None
    groups = await engine.gaps(since)
    if args.json:
        _print_json(render.gaps_json(groups, since))
    else:
        print(render.terminal_safe(render.gaps_text(groups, since)))
    return 0


async def cmd_bench(args: argparse.Namespace) -> int:
    """Run the retrieval benchmark."""
    result = await bench.run(args.questions, args.repos, args.retrieval)
    if args.json:
        _print_json(result)
    else:
        print(render.terminal_safe(bench.to_text(result)))
    return 0


class _Console(Console):
    """The console commands print to; a reader that has gone is handled by ``main``.

    rich's own handling exits with status 1, which says something broke; every command
    ends the same quiet way whether it prints through rich or not.
    """

    def on_broken_pipe(self) -> None:
        self.quiet = True  # nothing more is written to a reader that is not there
        raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))


def _print_json(data: Any) -> None:
    print(render.json_text(data))


def _shown(text: str) -> str:
    """Text from a repository or forge, for the rich console: inert as markup and as control."""
    return escape(render.terminal_safe(text))


Handler = Callable[[Engine, argparse.Namespace, Console], Awaitable[int]]
HANDLERS: dict[str, Handler] = {
    "index build": cmd_index_build,
    "index sources": cmd_index_sources,
    "index status": cmd_index_status,
    "ask": cmd_ask,
    "gaps": cmd_gaps,
}


async def cmd_serve(config: Config) -> int:
    """Run the bot until SIGINT or SIGTERM."""
    # Imported here: only serve needs the Discord stack, and the engine never imports it.
    from bot.app import serve

    return await serve(config)


async def _run(args: argparse.Namespace, config: Config) -> int:
    if args.command == "serve":
        return await cmd_serve(config)
    name = args.command + (f" {args.index_command}" if args.command == "index" else "")
    # Opening the index creates it. A command that only reads must not: at a mistyped
    # index.path that would leave an empty index behind and hide the typo. The embedded
    # default is the exception, as it builds its own index on first use.
    if name in READS_ONLY and not config.embedded and not config.index_path.exists():
        return _without_index(name, args, config)
    async with await Engine.open(config, needs_model=name in EMBEDS) as engine:
        return await HANDLERS[name](engine, args, _Console(highlight=False))


READS_ONLY = frozenset({"index sources", "index status", "ask", "gaps"})
# What runs the embedding model in hybrid mode: a build embeds passages, a question is
# embedded to be answered. Without the model installed these are refused, as serve is: a
# model that fails now and then is answered around from words alone, but one that was never
# installed is a setting to fix, and answering without a word would hide it.
EMBEDS = frozenset({"index build", "ask"})


def _without_index(name: str, args: argparse.Namespace, config: Config) -> int:
    """A read-only command where no index file exists: what it would say before a build."""
    missing = (
        f"No index exists at {config.index_path} yet. Build it with "
        f"'python -m bot.cli index build', or check index.path in {config.origin} if it "
        "should be there already."
    )
    if name == "ask":
        checked_question(args.question)  # a question that cannot be asked is refused first
        raise EmptyIndexError(missing)
    since = parse_since(args.since) if name == "gaps" and args.since else None
    if args.json:
        empty: dict[str, Any] = {
            "index sources": render.sources_json([]),
            # No passages, so none lacks a vector; null still says bm25 uses none.
            "index status": render.status_json(
                [], 0 if config.retrieval_mode == "hybrid" else None
            ),
            "gaps": render.gaps_json([], since),
        }
        _print_json(empty[name])
    else:
        print(render.terminal_safe(missing))  # not wrapped by rich: the path stays whole
    return 0


# What a shell reports for a command killed by SIGPIPE (128 + 13): what `yes | head` gets.
READER_GONE = 141
# What a shell reports for a command killed by SIGTERM (128 + 15), as a service manager expects.
TERMINATED = 143
_LEFT_AS_IT_WAS = (
    "the index is as it was before the interrupted step; run the command again to finish it"
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit code."""
    # Until event_loop.run takes SIGTERM or lets it through (held already when run as a program).
    sigterm.hold()
    try:
        code = _main(argv)
        # Output to a pipe is buffered, so a reader that stopped early (`| head -n1`) is
        # found here, where it can be handled, rather than when the interpreter exits.
        sys.stdout.flush()
    except BrokenPipeError:
        # Whoever reads the output has all they wanted: stop quietly, as `cat` and `git
        # log` do. What is still buffered goes nowhere, so exiting does not fail again.
        with contextlib.suppress(OSError, ValueError):  # stdout is not a file (captured)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return READER_GONE
    finally:
        # A command that stopped before its loop ran (a usage or configuration error) holds
        # nothing: SIGTERM acts as its default again, and one held meanwhile ends it now.
        sigterm.release()
    return code


_BENCH_READS_NO_CONFIGURATION = (
    "bench reads no configuration, so --config would be ignored: it measures with its own "
    f"options only (QUESTIONS, --repos DIR, --retrieval {'|'.join(RETRIEVAL_MODES)}). "
    "Leave out --config"
)


def _main(argv: Sequence[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command == "bench" and args.config is not None:
            # bench would measure without it, and a user who gave it would believe otherwise.
            # PHPBOTSCOUT_CONFIG is ambient, not asked for by this command line: it is ignored.
            raise _ArgumentsError(args.command_parser, _BENCH_READS_NO_CONFIGURATION)
    except _ArgumentsError as exc:
        if not _wants_json(argv):
            # Usage on stderr and exit 2, as argparse reports it.
            argparse.ArgumentParser.error(exc.parser, exc.message)
        hint = f"Run '{exc.parser.prog} --help' to see what it takes."
        _print_json({"error": {"kind": "usage", "message": f"{exc.message}. {hint}"}})
        return 2
    log_handler = logging.StreamHandler(sys.stderr)
    log_handler.setFormatter(render.TerminalSafeLog("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(
        # A service logs what it does; a one-shot command only what went wrong.
        level=logging.INFO if args.verbose or args.command == "serve" else logging.WARNING,
        handlers=[log_handler],
    )
    # The model SDK's HTTP client logs every request at INFO: noise in a service's log.
    for chatty in ("httpx", "httpx2"):
        logging.getLogger(chatty).setLevel(logging.WARNING)
    wants_json = bool(getattr(args, "json", False))
    try:
        if args.command == "bench":
            # bench builds a temporary index with settings of its own, from its options, and
            # reads no configuration: a broken phpbotscout.toml where it runs is no concern
            # of a measurement that never uses it.
            return event_loop.run(cmd_bench(args), fast=False, stop_on_term=True)
        config = config_module.load(
            args.config, config_module.environment(os.environ, Path.cwd()), Path.cwd()
        )
        # The service runs on uvloop where it is installed; one-shot commands gain nothing.
        serving = args.command == "serve"
        return event_loop.run(_run(args, config), fast=serving, stop_on_term=not serving)
    except PhpbotscoutError as exc:
        if wants_json:
            _print_json({"error": {"kind": exc.kind, "message": str(exc)}})
        else:
            print(f"error: {render.terminal_safe(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"interrupted: {_LEFT_AS_IT_WAS}", file=sys.stderr)
        return 130
    except event_loop.Terminated:
        print(f"stopped by SIGTERM: {_LEFT_AS_IT_WAS}", file=sys.stderr)
        return TERMINATED


if __name__ == "__main__":
    sys.exit(main())
