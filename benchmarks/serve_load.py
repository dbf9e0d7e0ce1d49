"""``serve`` under load, through the fake Discord: nothing lost, the model bound held, latency, RSS.

``python -m bot.cli serve`` runs as its own process, exactly as deployed, against the test
suite's fake Discord on 127.0.0.1, answering with the real ``anthropic`` provider pointed at the
fake Messages API, which replies at once (an instant model). The fakes live in this process, so
they do not compete with the bot for its interpreter. Worker threads play the people: each
dispatches an ``/ask`` interaction and waits for the bot's final message, so ``--concurrency``
interactions are in flight at any moment. Latency is measured at the fake, from dispatching the
interaction to receiving the final edit (or the rate-limit notice). The bot's resident memory
is read from ``/proc`` after the asks, with its two ranking helper processes' CPU and their
share of memory; the most model calls in flight at once is what ``serve`` logs when it stops.

Run from the repository root:

    python benchmarks/serve_load.py                                   # the embedded default
    python benchmarks/serve_load.py --repos DIR --questions QUESTIONS.jsonl

Defaults: 20 warm-up asks one at a time, then 200 asks from 50 people, 20 at a time, the default
rate limit (3 a minute per person) and ``discord.max_concurrent_answers = 4``. Figures go to
BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.answer_overhead import OWN_QUESTIONS
from bot import config as config_module
from bot.config import project_root
from bot.forge.local import EMBEDDED_NAME
from tests.discord_bot import build_index
from tests.fakes.anthropic_server import KEY, Behaviour, FakeAnthropic, tool_call
from tests.fakes.discord import GUILD_ID, TOKEN, FakeDiscord
from tests.gitrepo import git, make_repo
from tests.processes import descendants

ROOT = Path(__file__).resolve().parent.parent


def instant_answer(body: dict[str, Any]) -> Behaviour:
    """A grounded answer citing passage 1, at once."""
    return tool_call("The first passage answers this.", [1])


def kind_of(reply: Any) -> str:
    if reply.ephemeral and "Try again in" in reply.content:
        return "rate limited"
    if reply.embeds and reply.embeds[0].get("title") == "Answer":
        return "answered"
    if "documentation gap" in reply.content:
        return "declined"
    return "other"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def rss_mb(pid: int) -> tuple[float, float]:
    """Resident memory now and at its peak, in MB, from /proc."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def pss_mb(pid: int) -> float:
    """Proportional set size in MB: pages shared with other processes counted by their share."""
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
    return 0.0


def helpers(pid: int) -> list[int]:
    """The ranking helpers ``pid`` started, from /proc."""
    return [p.pid for p in descendants(pid) if "-m bot.index.ranking_process " in p.command]


def cpu_seconds(pid: int) -> float:
    """User and system CPU time a process has used, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# What the embedded default indexes of this checkout (``bot.indexing.DOCUMENTATION_ONLY``): the
# docs site and its config, the README and the changelog.
DOCUMENTATION = ("zensical.toml", "docs", "README.md", "CHANGELOG.md")


def documentation_copy(checkout: Path, parent: Path) -> Path:
    """A git repository holding the checkout's documentation only, as the default corpus.

    ``serve`` needs a configuration file (the fake Discord's address), and with one the
    checkout would be an ordinary local source, code and notes included; a copy of the files
    the embedded default reads makes the served corpus the default one.
    """
    tracked = git(checkout, "ls-files", "-z", "--", *DOCUMENTATION).split("\0")
    copy = parent / EMBEDDED_NAME
    make_repo(copy, {name: (checkout / name).read_bytes() for name in tracked if name})
    return copy


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", type=Path, help="directory of git repositories to index")
    parser.add_argument("--questions", type=Path, help="questions file (JSON Lines)")
    parser.add_argument("--asks", type=int, default=200)
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--bound", type=int, default=4, help="discord.max_concurrent_answers")
    parser.add_argument("--rate-limit", default="3/60s", help="discord.rate_limit")
    parser.add_argument("--warmup", type=int, default=20, help="asks first, one at a time")
    args = parser.parse_args()

    questions = OWN_QUESTIONS
    if args.questions:
        lines = args.questions.read_text().splitlines()
        questions = [json.loads(line)["question"] for line in lines if line.strip()]

    with tempfile.TemporaryDirectory() as scratch, FakeDiscord() as discord:
        anthropic = FakeAnthropic().start()
        anthropic.script(instant_answer)
        root = Path(scratch)
        source = args.repos.resolve() if args.repos else documentation_copy(project_root(), root)
        config_path = root / "phpbotscout.toml"
        config_path.write_text(
            f'[sources]\nlocal = ["{source}"]\n'
            f'[index]\npath = "index.sqlite"\nclones = "clones"\n'
            f'[answer]\nprovider = "anthropic"\ntimeout = "30s"\n'
            f'[discord]\napi_url = "{discord.api_url}"\nguilds = [{GUILD_ID}]\n'
            f'rate_limit = "{args.rate_limit}"\nmax_concurrent_answers = {args.bound}\n'
        )
        env = {"HOME": scratch, "ANTHROPIC_API_KEY": KEY}
        started = time.perf_counter()
        build_index(config_module.load(str(config_path), env, root))
        print(f"index built in {time.perf_counter() - started:.1f} s")
        serve = subprocess.Popen(
            [sys.executable, "-m", "bot.cli", "--config", str(config_path), "serve"],
            cwd=ROOT,
            env={
                **os.environ,
                "HOME": scratch,
                "DISCORD_TOKEN": TOKEN,
                "ANTHROPIC_API_KEY": KEY,
                "ANTHROPIC_BASE_URL": anthropic.url,
            },
            stderr=subprocess.PIPE,
            text=True,
        )
        # serve logs a few lines per answer; read them as they come, or a full pipe would
        # block its logging (and so the bot) once the log outgrows the pipe's buffer.
        log_lines: list[str] = []
        assert serve.stderr is not None
        reader = threading.Thread(target=lambda: log_lines.extend(serve.stderr or ()))
        reader.start()
        try:
            discord.until(lambda: GUILD_ID in discord.commands, timeout=60)
            idle_rss, _ = rss_mb(serve.pid)
            # The first questions pay for cold caches and lazily built clients; they are
            # asked one at a time, by people outside the load, and kept out of the load figures
            # (the later ones show what one question costs when nothing else is asked).
            alone = []
            for n in range(args.warmup):
                question = questions[n % len(questions)]
                warm = discord.command("ask", {"question": question}, user=n + 1)
                alone.append(discord.reply(warm, timeout=60).at - warm.dispatched_at)
            users = [1500000000000000000 + n for n in range(args.users)]
            plan = [
                (users[n % args.users], questions[n % len(questions)]) for n in range(args.asks)
            ]

            def one(job: tuple[int, str]) -> tuple[str, float]:
                user, question = job
                interaction = discord.command("ask", {"question": question}, user=user)
                reply = discord.reply(interaction, timeout=60)
                return kind_of(reply), reply.at - interaction.dispatched_at

            wall = time.perf_counter()
            cpu = cpu_seconds(serve.pid)
            helpers_cpu = {p: cpu_seconds(p) for p in helpers(serve.pid)}
            own_cpu = time.process_time()
            with ThreadPoolExecutor(args.concurrency) as pool:
                results = list(pool.map(one, plan))
            wall = time.perf_counter() - wall
            cpu = cpu_seconds(serve.pid) - cpu
            ranking = helpers(serve.pid)
            helpers_cpu_used = sum(cpu_seconds(p) - helpers_cpu.get(p, 0.0) for p in ranking)
            own_cpu = time.process_time() - own_cpu
            rss, peak = rss_mb(serve.pid)
            # Each process's own peak, added: pages the helpers share are counted twice.
            helpers_peak = sum(rss_mb(p)[1] for p in ranking)
            # Their memory stays level once they have searched (a page cache of a fixed size),
            # so their share now, added to serve's own peak, is the footprint at its peak.
            helpers_pss = sum(pss_mb(p) for p in ranking)
        finally:
            serve.send_signal(signal.SIGTERM)
            serve.wait(timeout=60)
            reader.join(timeout=60)
            log = "".join(log_lines)
            if sys.exc_info()[0] is not None:  # the load failed: show what serve said
                print(log[-4000:], file=sys.stderr)
            anthropic.stop()
        replies = sorted({len(i.replies) for i in discord.interactions()})

    latencies = [seconds * 1000 for _, seconds in results]
    kinds = {k: sum(1 for r in results if r[0] == k) for k in sorted({r[0] for r in results})}
    bound = re.search(r"model calls: at most (\d+) at once", log)
    in_flight = int(bound.group(1)) if bound else -1
    errors = [line for line in log.splitlines() if line.startswith(("ERROR", "CRITICAL"))]
    print(
        f"{len(results)} /ask from {args.users} people, {args.concurrency} at a time, "
        f"bound {args.bound}, rate limit {args.rate_limit}: {wall:.2f} s "
        f"({len(results) / wall:.0f} asks/s)"
    )
    print(
        f"CPU during the asks: serve {cpu:.2f} s, its {len(ranking)} ranking helpers "
        f"{helpers_cpu_used:.2f} s, the fakes and the askers {own_cpu:.2f} s"
    )
    if len(alone) > 5:
        steady = [seconds * 1000 for seconds in alone[5:]]
        print(
            f"one at a time (warm-up asks 6-{len(alone)}), ms: "
            f"p50 {statistics.median(steady):.1f}, max {max(steady):.1f}"
        )
    print("outcomes: " + ", ".join(f"{k} {n}" for k, n in kinds.items()))
    print(f"messages per interaction: {replies}")
    print(f"model calls: {len(anthropic.received)}, most in flight at once: {in_flight}")
    print(
        "dispatch -> final message, ms: "
        f"p50 {statistics.median(latencies):.1f}, p95 {percentile(latencies, 0.95):.1f}, "
        f"max {max(latencies):.1f}"
    )
    for kind in kinds:
        subset = [s * 1000 for k, s in results if k == kind]
        print(f"  {kind}: p50 {statistics.median(subset):.1f}, p95 {percentile(subset, 0.95):.1f}")
    print(f"serve RSS, MB: {idle_rss:.0f} connected, {rss:.0f} after the asks, {peak:.0f} at peak")
    print(
        f"its ranking helpers, MB: {helpers_peak:.0f} at their peaks in all, "
        f"{helpers_pss:.0f} of it their own (proportional set size, after the asks)"
    )
    print(f"serve exit code {serve.returncode}, ERROR lines in its log: {len(errors)}")
    complete = (
        len(results) == args.asks
        and "other" not in kinds
        and 0 <= in_flight <= args.bound
        and replies == [1]
        and serve.returncode == 0
        and not errors
    )
    fast = percentile(latencies, 0.95) <= 250
    small = peak + helpers_pss <= 200
    print("every ask answered once, bound held, clean exit: " + ("PASS" if complete else "FAIL"))
    print("p95 dispatch -> final message <= 250 ms: " + ("PASS" if fast else "FAIL"))
    print("serve's peak RSS and its helpers' share <= 200 MB: " + ("PASS" if small else "FAIL"))
    bars = complete and fast and small
    return 0 if bars else 1


if __name__ == "__main__":
    sys.exit(main())
