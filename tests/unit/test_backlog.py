import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.answer.backlog import group, parse_since, same_question
from bot.errors import UsageError
from bot.index.records import DeclineRow


def row(qid, at, question, kind="composer_declined", reason="r"):
    return DeclineRow(qid, at, question, kind, reason)


def test_declines_group_by_kind_and_merge_repeats_newest_first():
    rows = [
        row(5, "2026-11-30T10:00:00+00:00", "How do I rotate keys?", reason="newest"),
        row(4, "2026-11-30T09:00:00+00:00", "zzz", kind="nothing_matched"),
        row(3, "2026-11-29T09:00:00+00:00", "What colour are widgets?"),
        row(2, "2026-11-28T09:00:00+00:00", "how do I rotate keys", reason="older"),
    ]
    groups = group(rows)
    assert [(g.kind, g.declines) for g in groups] == [
        ("composer_declined", 3),
        ("nothing_matched", 1),
    ]
    rotate, colour = groups[0].gaps
    assert (rotate.question, rotate.times, rotate.reason) == ("How do I rotate keys?", 2, "newest")
    assert (rotate.last_asked, rotate.first_asked) == (rows[0].asked_at, rows[3].asked_at)
    assert rotate.question_ids == (5, 2)
    assert colour.times == 1
    assert group([]) == []


def test_same_question_ignores_case_space_and_final_punctuation():
    assert same_question("  How  do I X? ") == same_question("how do i x")


def test_since_accepts_dates_and_times_in_utc():
    assert parse_since("2026-11-30") == "2026-11-30T00:00:00+00:00"
    assert parse_since("2026-11-30T09:30+01:00") == "2026-11-30T08:30:00+00:00"
    with pytest.raises(UsageError, match="not a date"):
        parse_since("last tuesday")


@pytest.mark.parametrize("edge", ["9999-12-31T23:59-01:00", "0001-01-01T00:00+01:00"])
def test_since_at_the_calendar_edge_is_a_usage_error_not_an_overflow(edge):
    with pytest.raises(UsageError, match="outside the calendar"):
        parse_since(edge)


@given(st.text() | st.datetimes(timezones=st.timezones()).map(lambda d: d.isoformat()))
def test_since_gives_a_time_or_a_usage_error_whatever_it_is_given(text):
    try:
        parsed = parse_since(text)
    except UsageError:
        return
    assert parsed.endswith("+00:00")
