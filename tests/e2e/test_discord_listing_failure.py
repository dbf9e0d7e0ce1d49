"""/sources when the last GitLab listing failed: the list from before, and why, end to end."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator

import pytest

from bot.config import Config
from bot.engine import Engine
from tests.discord_bot import BotThread, bot_config, watched
from tests.fakes.discord import FakeDiscord, Reply
from tests.fakes.estate import upstream
from tests.fakes.gitlab import FakeGitLab, Rule
from tests.gitrepo import make_repo

USERS = itertools.count(1500000000000000900)
LISTING = r"/groups/[^/]+/projects$"


def _build(config: Config) -> bool:
    async def build() -> bool:
        async with await Engine.open(config) as engine:
            return (await engine.refresh()).ok

    return asyncio.run(build())


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory, discord: FakeDiscord) -> Iterator[BotThread]:
    root = tmp_path_factory.mktemp("listing-failure")
    estate = root / "estate"
    make_repo(estate / "tools", {"README.md": "# Tools\n\nThey do things.\n"})
    with FakeGitLab(root / "upstream") as forge:
        upstream(forge, "acme/widgets", {"README.md": "# Widgets\n\nWidgets widget.\n"})
        forge.feed = ["acme/widgets"]
        extra = {
            "gitlab": {"group": forge.group, "url": {"api": forge.api}},
            "index": {"feed": {"url": f"{forge.url}/feed.json"}},
        }
        config = bot_config(root, estate, discord, extra=extra)
        assert _build(config)  # acme/widgets is found and indexed
        # From now on GitLab refuses the listing, the bot's own start-up refresh included.
        forge.rules.append(Rule(LISTING, status=503))
        assert not _build(config)
        bot = BotThread(config).start()
        bot.run(bot.service.refresher.settle())
        yield bot
        bot.stop()


@pytest.fixture(autouse=True)
def _anything_swallowed_fails_the_test(running: BotThread, discord: FakeDiscord) -> Iterator[None]:
    with watched(running, discord):
        yield


def sources(discord: FakeDiscord, name: str | None = None) -> Reply:
    """``/sources``, or ``/sources name:``, by someone new; the bot's reply."""
    options = {"name": name} if name else None
    return discord.reply(discord.command("sources", options, user=next(USERS)))


def test_sources_says_first_that_the_listing_failed_and_the_gitlab_verdicts_are_from_before(
    discord,
):
    reply = sources(discord)
    notice, counts = reply.content.split("\n\n")
    assert notice.startswith("⚠ GitLab's listing of **acme** failed in the last build (")
    assert "its projects are listed as the last listing that worked left them" in notice
    assert "It said: " in notice and "503" in notice
    assert "`gitlab.url.api`, `GITLAB_TOKEN`" in notice
    assert counts.startswith("2 sources: 2 indexed, 0 rejected, 0 unresolved.")
    [embed] = reply.embeds
    assert embed["description"].startswith("**acme/widgets** — admitted by ")


def test_sources_for_an_absent_project_gives_the_failed_listing_as_the_likely_reason(discord):
    reply = sources(discord, "acme/gadgets")
    first, second, *_ = reply.content.split("\n\n")
    assert first == "No source called **acme/gadgets** is known to the index."
    assert second.startswith("⚠ GitLab's listing of **acme** failed in the last build (")


def test_sources_for_a_gitlab_project_says_its_verdict_is_from_the_last_listing_that_worked(
    discord,
):
    [embed] = sources(discord, "acme/widgets").embeds
    assert embed["description"].startswith("⚠ GitLab's listing of **acme** failed")
    assert "**Indexed**: answers may cite it" in embed["description"]
    [embed] = sources(discord, "tools").embeds
    assert "GitLab" not in embed["description"]  # a repository on disk owes the listing nothing


def test_status_says_first_that_the_listing_failed_though_each_source_was_just_refreshed(discord):
    [embed] = discord.reply(discord.command("status", None, user=next(USERS))).embeds
    notice, rest = embed["description"].split("\n\n", 1)
    assert notice.startswith("⚠ GitLab's listing of **acme** failed in the last build (")
    assert "It said: " in notice and "503" in notice
    assert "`gitlab.url.api`, `GITLAB_TOKEN`" in notice
    assert rest.startswith("**Answers:** ")
    assert "**Last refresh:** " in rest and "never" not in rest.split("\n")[2]
