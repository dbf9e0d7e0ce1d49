"""What index sources says about a GitLab listing the last build could not make."""

from datetime import UTC, datetime, timedelta

from bot.index.catalog import ListingFailure
from bot.render import listing_failure_text
from tests.unit.test_discord_format import state

API = "https://gitlab.example.org/api/v4"


NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def failure(
    error: str = "401 Unauthorized: GITLAB_TOKEN is missing, wrong or expired.",
) -> ListingFailure:
    an_hour_ago = (NOW - timedelta(hours=1, seconds=5)).isoformat()
    return ListingFailure("acme", error, an_hour_ago)


def test_the_advice_is_what_the_listing_said_and_where_to_look_before_building_again():
    text = listing_failure_text(failure(), API, [], NOW)
    assert text.startswith("GitLab's listing of acme failed in the last build (1h ago)")
    assert "none of its projects is known yet" in text
    assert "GITLAB_TOKEN is missing, wrong or expired. Running the build again" in text  # one stop
    assert f"check gitlab.url.api (now {API}), GITLAB_TOKEN" in text
    assert text.endswith("then run 'python -m bot.cli index build' again.")


def test_gitlab_sources_already_known_are_said_to_be_the_ones_from_before():
    local_only = listing_failure_text(failure(), API, [state("handbook")], NOW)
    assert "none of its projects is known yet" in local_only  # a local source is not GitLab's
    known = listing_failure_text(failure(), API, [state("acme/handbook", origin="gitlab")], NOW)
    assert "its projects are shown as the last listing that worked decided them" in known


def test_addresses_in_the_advice_carry_no_credentials():
    said = "GitLab could not be reached for https://bot:s3cret@gitlab.example.org/api/v4/groups"
    text = listing_failure_text(failure(said), API + "?private_token=s3cret", [], NOW)
    assert "s3cret" not in text
    assert "https://***@gitlab.example.org/api/v4/groups" in text
    assert f"(now {API}?***)" in text
