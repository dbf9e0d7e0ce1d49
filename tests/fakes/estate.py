"""Build a fake forge's estate: upstream repositories, projects, the feed and the sites."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bot import config as config_module
from tests.fakes.gitlab import FakeGitLab, FakeProject
from tests.gitrepo import commit, git, make_repo


def site_config(fake: FakeGitLab, name: str) -> str:
    return f'[project]\nsite_name = "{name}"\nsite_url = "{fake.site_url(name)}"\n'


def upstream(
    fake: FakeGitLab,
    path: str,
    files: dict[str, str | bytes | None],
    *,
    site: bool = True,
    release: str | None = None,
    branch: str = "main",
    **project: Any,
) -> FakeProject:
    """Create the repository of ``path`` (with a docs site unless ``site=False``) and list it."""
    name = path.rpartition("/")[2]
    content = dict(files)
    if site:
        content.setdefault("zensical.toml", site_config(fake, name))
        fake.sites[name] = 200
    make_repo(fake.repo_dir(path), content, branch=branch)
    if release:
        git(fake.repo_dir(path), "tag", release)
    pid = len(fake.projects) + 1
    entry = FakeProject(pid, path, release=release, default_branch=branch, **project)
    fake.add(entry)
    return entry


def push(
    fake: FakeGitLab, path: str, files: dict[str, str | bytes | None], message: str = "change"
) -> str:
    """Commit upstream; return the new head."""
    return commit(fake.repo_dir(path), files, message)


def release(fake: FakeGitLab, path: str, tag: str) -> str:
    """Tag upstream's head and make it the latest release; return the tagged commit."""
    repo = fake.repo_dir(path)
    git(repo, "tag", tag)
    fake.project(path).release = tag
    return git(repo, "rev-parse", "HEAD")


def rename(fake: FakeGitLab, path: str, new: str) -> None:
    """Rename or move a project, its repository with it; its old path still finds it."""
    project = fake.project(path)
    fake.repo_dir(new).parent.mkdir(parents=True, exist_ok=True)
    fake.repo_dir(path).rename(fake.repo_dir(new))
    project.former_paths = (*project.former_paths, path)
    project.path = new


def configure(
    tmp_path: Path,
    fake: FakeGitLab,
    *,
    token: str | None = None,
    **extra: dict[str, Any],
) -> config_module.Config:
    raw: dict[str, Any] = {
        "index": {
            "path": str(tmp_path / "index.sqlite"),
            "clones": str(tmp_path / "clones"),
            "feed": {"url": f"{fake.url}/feed.json"},
            **extra.get("index", {}),
        },
        "gitlab": {"group": fake.group, "url": {"api": fake.api}, **extra.get("gitlab", {})},
        "sources": dict(extra.get("sources", {})),
    }
    env = {"GITLAB_TOKEN": token} if token else {}
    return config_module.from_mapping(raw, env=env, base=tmp_path)


@contextmanager
def another_process_holding(clones: Path) -> Iterator[None]:
    """Another process holding the clones directory, as a build or serve does while it works."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys\n"
            f"fd = os.open({str(clones / '+lock')!r}, os.O_RDWR | os.O_CREAT, 0o600)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n"
            "print('held', flush=True)\n"
            "sys.stdin.read()\n",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        yield
    finally:
        holder.communicate("")
