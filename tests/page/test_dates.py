"""``unavailable_after`` dates: the formats Google names (RFC 822, RFC 850, ISO 8601), and
nothing guessed."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scrapy_gbot_robots.page.dates import MAX_DATE_CHARS, parse_date


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0, sec: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, sec, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Google's own example (X-Robots-Tag section): RFC 822 without a day name.
        ("25 Jun 2010 15:00:00 PST", utc(2010, 6, 25, 23)),
        ("Fri, 25 Jun 2010 15:00:00 GMT", utc(2010, 6, 25, 15)),
        ("Fri,25 Jun 2010 15:00:00 +0200", utc(2010, 6, 25, 13)),
        ("25 Jun 10 15:00 EDT", utc(2010, 6, 25, 19)),  # two-digit year, no seconds
        ("25 Jun 99 15:00 UT", utc(1999, 6, 25, 15)),  # RFC 2822: 50-99 are the 1900s
        ("25 June 2010", utc(2010, 6, 25)),  # full month name, no time: midnight UTC
        ("  25   jun   2010  ", utc(2010, 6, 25)),  # case and spaces
        # RFC 850.
        ("Friday, 25-Jun-10 15:00:00 GMT", utc(2010, 6, 25, 15)),
        ("Friday, 25-Jun-2010 15:00:00 CEST", utc(2010, 6, 25, 13)),
        ("25-Jun-10 15:00:00", utc(2010, 6, 25, 15)),  # no zone: UTC
        # asctime, HTTP's third form.
        ("Fri Jun 25 15:00:00 2010", utc(2010, 6, 25, 15)),
        # ISO 8601, extended and basic.
        ("2010-06-25", utc(2010, 6, 25)),
        ("2010-06-25T15:00:00Z", utc(2010, 6, 25, 15)),
        ("2010-06-25t15:00z", utc(2010, 6, 25, 15)),
        ("2010-06-25 15:00:00.250+02:00", utc(2010, 6, 25, 13)),
        ("2010-06-25T15:00:00-0800", utc(2010, 6, 25, 23)),
        ("2010-06-25T15:00+05", utc(2010, 6, 25, 10)),
        ("20100625T150000Z", utc(2010, 6, 25, 15)),
        ("20100625", utc(2010, 6, 25)),
        # English, with commas.
        ("June 25, 2010", utc(2010, 6, 25)),
        ("Friday, June 25, 2010 3:00 PM".replace(" PM", " PST"), utc(2010, 6, 25, 11)),
    ],
)
def test_formats_google_names(text: str, expected: datetime) -> None:
    got = parse_date(text)
    assert got == expected
    assert got is not None and got.tzinfo is timezone.utc


@pytest.mark.parametrize(
    "text",
    [
        "",
        "tomorrow",
        "2010-02-30",  # no such day
        "2010-13-01",
        "25 Jun 2010 25:00:00 GMT",  # no such hour
        "25 Jun 2010 15:00 XYZ",  # a zone name not in the table: not guessed
        "25 Jun 2010 15:00 IST",  # ambiguous (India, Ireland, Israel): not guessed
        "2010-06-25T15:00+25:00",  # no such offset
        "1277478000",  # a Unix time is not a date format Google names
        "Jun 2010",
        "25 Jun 2010 15:00:00 PST extra",
        "2" * (MAX_DATE_CHARS + 1),
    ],
)
def test_what_is_not_a_date_is_none(text: str) -> None:
    assert parse_date(text) is None


def test_extreme_years_do_not_overflow() -> None:
    assert parse_date("0001-01-01T00:00:00+01:00") is None  # before year 1 in UTC
    assert parse_date("9999-12-31T23:59:59-01:00") is None  # after year 9999 in UTC
    assert parse_date("9999-12-31T23:59:59Z") == utc(9999, 12, 31, 23, 59, 59)


@given(st.text(max_size=120))
def test_never_raises(text: str) -> None:
    got = parse_date(text)
    assert got is None or got.tzinfo is timezone.utc
