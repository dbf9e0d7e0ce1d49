"""A source's age and staleness, measured at the moment asked about."""

from datetime import datetime, timedelta

from tests.unit.test_discord_format import state

REFRESHED = datetime.fromisoformat("2026-11-30T11:00:00+00:00")  # as ``state`` records it


def test_age_and_staleness_are_measured_at_the_moment_given():
    source = state("widgets")
    hour_later = REFRESHED + timedelta(hours=1)
    assert source.age_seconds(hour_later) == 3600
    assert not source.is_stale(3600, hour_later)  # exactly its interval: not stale yet
    assert source.is_stale(3599, hour_later)
    never = state("new", refreshed_at=None)
    assert never.age_seconds(hour_later) is None
    assert never.is_stale(10**9, hour_later)  # never refreshed is stale whatever the interval
