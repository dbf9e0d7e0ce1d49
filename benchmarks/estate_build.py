"""Build a 50-project fake GitLab estate from scratch, then again with nothing changed.

Everything is real but the forge: a fake GitLab REST API on loopback, real git repositories
served by ``git http-backend``, real clones, the real index. It prints how long each build took,
what the index holds, and what each build cost in requests: per source by kind (``git``: the
repository; ``release``: a one-by-one latest-release lookup; ``file``: a file read through the
API; ``api``: any other API request about the project; ``site``: the docs site), and shared by
the whole group (the feed, the project listing, the group's release listing).

    .venv/bin/python benchmarks/estate_build.py [--projects 50] [--pages 25] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.engine import Engine  # noqa: E402
from tests.fakes.estate import configure, upstream  # noqa: E402
from tests.fakes.gitlab import FakeGitLab  # noqa: E402

TOKEN = "glpat-benchmark"
WORDS = [
    "widget",
    "sprocket",
    "gear",
    "lever",
    "cog",
    "spring",
    "valve",
    "pipe",
    "frame",
    "bolt",
    "relay",
    "queue",
    "cache",
    "token",
    "shard",
    "replica",
    "index",
    "config",
    "plugin",
    "module",
    "client",
    "server",
    "request",
    "response",
    "handler",
]


def _text(seed: int, words: int) -> str:
    return " ".join(WORDS[(seed * 7 + i * 3) % len(WORDS)] for i in range(words)) + "."


def _page(project: int, page: int, sections: int) -> str:
    out = [f"# Page {page} of project {project}\n\n{_text(project + page, 40)}\n"]
    for s in range(sections):
        out.append(
            f"\n## Topic {s} {WORDS[(page + s) % len(WORDS)]}\n\n{_text(page * 31 + s, 60)}\n"
        )
    return "".join(out)


def _go_file(project: int, n: int) -> str:
    funcs = "".join(
        f"\n// Do{i} does step {i} of the {WORDS[i % len(WORDS)]} flow.\nfunc Do{i}() {{}}\n"
        for i in range(8)
    )
    return f"// Package p{n} is part {n} of project {project}.\npackage p{n}\n{funcs}"


def build_estate(fake: FakeGitLab, projects: int, pages: int) -> None:
    for p in range(projects):
        siteless = p % 5 == 4  # one in five lives under go/ with no docs site
        files: dict[str, str | bytes | None] = {
            "README.md": _page(p, 0, 6 if not siteless else 40),
            "CHANGELOG.md": "# Changelog\n"
            + "".join(
                f"\n## v1.{v}\n\n{_text(v + p, 30)}\n" for v in range(10 if not siteless else 60)
            ),
        }
        files.update({f"pkg/p{n}/p{n}.go": _go_file(p, n) for n in range(10)})
        if not siteless:
            files.update({f"docs/page{i:02}.md": _page(p, i, 10) for i in range(pages)})
        path = f"acme/go/lib{p:02}" if siteless else f"acme/project{p:02}"
        upstream(fake, path, files, site=not siteless, release="v1.0.0" if p % 2 else None)
    fake.feed = [project.path for project in fake.projects]


async def run(args: argparse.Namespace) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        with FakeGitLab(work / "upstream", token=TOKEN) as fake:
            started = time.perf_counter()
            build_estate(fake, args.projects, args.pages)
            setup = time.perf_counter() - started
            config = configure(work, fake, token=TOKEN)
            async with await Engine.open(config) as engine:
                started = time.perf_counter()
                first = await engine.refresh()
                first_seconds = time.perf_counter() - started
                statuses = await engine.status()
                first_cost = _costs(fake)
                fake.clear_log()
                started = time.perf_counter()
                second = await engine.refresh()
                second_seconds = time.perf_counter() - started
                second_cost = _costs(fake)
    return {
        "projects": args.projects,
        "setup_seconds": round(setup, 2),
        "first_build_seconds": round(first_seconds, 2),
        "first_build": Counter(o.status for o in first.outcomes),
        "documents": sum(s.state.documents for s in statuses),
        "chunks": sum(s.state.chunks for s in statuses),
        **_report("first_build", first_cost),
        "second_build_seconds": round(second_seconds, 2),
        "second_build": Counter(o.status for o in second.outcomes),
        **_report("second_build", second_cost),
    }


KINDS = ("git", "release", "file", "api", "site")


def _costs(fake: FakeGitLab) -> tuple[list[Counter[str]], Counter[str]]:
    """Every logged request, per source by kind, and the ones the whole group shares."""
    per_source: list[Counter[str]] = []
    counted: set[int] = set()
    for project in fake.projects:
        kinds: Counter[str] = Counter({kind: 0 for kind in KINDS})
        for request in fake.requests_for(project):
            counted.add(id(request))
            if request.is_git:
                kinds["git"] += 1
            elif "/releases/" in request.path:
                kinds["release"] += 1
            elif "/repository/files/" in request.path:
                kinds["file"] += 1
            else:
                kinds["api"] += 1
        site = f"/sites/{project.path.rpartition('/')[2]}/"
        for request in fake.log:
            if request.path.startswith(site):
                counted.add(id(request))
                kinds["site"] += 1
        per_source.append(kinds)
    shared: Counter[str] = Counter()
    for request in fake.log:
        if id(request) in counted:
            continue
        if request.path == "/feed.json":
            shared["feed"] += 1
        elif request.path.endswith("/projects"):
            shared["listing"] += 1
        elif request.path.endswith("/releases"):
            shared["group_releases"] += 1
        else:
            shared["other"] += 1
    return per_source, shared


def _report(name: str, cost: tuple[list[Counter[str]], Counter[str]]) -> dict[str, object]:
    per_source, shared = cost
    total = sum(sum(s.values()) for s in per_source) + sum(shared.values())
    return {
        f"{name}_requests_per_source": {
            kind: {
                "min": min(s[kind] for s in per_source),
                "max": max(s[kind] for s in per_source),
                "mean": round(statistics.mean(s[kind] for s in per_source), 2),
            }
            for kind in KINDS
        },
        f"{name}_shared_requests": dict(shared),
        f"{name}_requests_total": total,
        f"{name}_round_trips_per_source": round(total / len(per_source), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", type=int, default=50)
    parser.add_argument("--pages", type=int, default=25, help="docs pages per sited project")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = asyncio.run(run(args))
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for key, value in result.items():
        print(f"{key:36} {value}")


if __name__ == "__main__":
    main()
