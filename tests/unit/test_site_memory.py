"""When an earlier run's "the site answered" may stand for this run's (``Memory``)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.forge.discovery import Memory, SiteConfig, SiteSeen

URL = "https://acme.example/lib/"
HEAD = "a" * 40
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def _memory(at: str, interval: float = 3600.0) -> Memory:
    return Memory(seen={"acme/lib": SiteSeen(URL, HEAD, at)}, site_check_interval=interval, now=NOW)


@pytest.mark.parametrize("at", ["2026-06-01T11:30:00+00:00", "2026-06-01T12:00:00+00:00"])
def test_a_recent_answer_at_the_same_url_and_head_stands(at):
    seen = _memory(at).still_answering("acme/lib", URL, HEAD)  # also one given this instant
    assert seen is not None and seen.at == at


@pytest.mark.parametrize(
    ("name", "url", "head"),
    [
        ("acme/other", URL, HEAD),  # never seen
        ("acme/lib", "https://acme.example/moved/", HEAD),  # the site moved
        ("acme/lib", URL, "b" * 40),  # the branch moved
        ("acme/lib", URL, None),  # the head could not be read this run
    ],
)
def test_anything_that_changed_means_asking_again(name, url, head):
    assert _memory("2026-06-01T11:30:00+00:00").still_answering(name, url, head) is None


@pytest.mark.parametrize(
    "at",
    [
        "2026-06-01T10:59:59+00:00",  # older than the interval
        "2026-06-01T11:00:00+00:00",  # exactly the interval old: due again
        "2026-06-01T12:00:01+00:00",  # in the future: a clock that went back
        "2026-06-01T11:30:00",  # no time zone: its age cannot be told
        "yesterday",  # unreadable
    ],
)
def test_an_answer_whose_age_is_not_within_the_interval_is_asked_again(at):
    assert _memory(at).still_answering("acme/lib", URL, HEAD) is None


def test_an_interval_of_zero_never_reuses_an_answer():
    memory = _memory("2026-06-01T12:00:00+00:00", interval=0)
    assert memory.still_answering("acme/lib", URL, HEAD) is None


def test_a_path_respelled_in_letter_case_finds_what_was_remembered_of_it():
    old = SiteConfig(HEAD, "zensical.toml", URL)
    memory = Memory(configs={"acme/Lib": old}, seen={"acme/Lib": SiteSeen(URL, HEAD, "x")})
    assert memory.config_of("acme/lib") is old
    assert memory.config_of("acme/library") is None


def test_the_exact_spelling_wins_and_several_others_are_none_of_them():
    exact, other = SiteConfig(HEAD, "zensical.toml", URL), SiteConfig(HEAD, "mkdocs.yml", None)
    assert Memory(configs={"acme/Lib": other, "acme/lib": exact}).config_of("acme/lib") is exact
    several = Memory(configs={"acme/Lib": exact, "acme/LIB": other})
    assert several.config_of("acme/lib") is None
