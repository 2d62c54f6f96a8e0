"""Which page answers ask to slow down, and for how long (``policy/backoff.py``)."""

from __future__ import annotations

import pytest

from scrapy_gbot_robots.policy.backoff import BASE, backoff_delay, is_distress


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504, 599])
def test_429_and_every_5xx_ask_to_slow_down(status: int) -> None:
    assert is_distress(status)


@pytest.mark.parametrize("status", [200, 204, 301, 304, 400, 403, 404, 410, 428, 430, 600])
def test_other_answers_show_the_site_serving(status: int) -> None:
    assert not is_distress(status)


def test_retry_after_seconds_are_obeyed_and_capped() -> None:
    assert backoff_delay("3", 1, 0.0, 300.0) == (3.0, True)
    assert backoff_delay("3600", 1, 0.0, 300.0) == (300.0, True)


def test_retry_after_as_an_http_date() -> None:
    now = 1_445_412_480.0  # Wed, 21 Oct 2015 07:28:00 GMT
    assert backoff_delay("Wed, 21 Oct 2015 07:28:10 GMT", 1, now, 300.0) == (10.0, True)


@pytest.mark.parametrize("value", [None, "", "0", "soon", "-5", "Wed, 21 Oct 2015 07:28:00 GMT"])
def test_a_retry_after_that_names_no_wait_falls_back_to_doubling(value: str | None) -> None:
    now = 1_445_412_490.0  # after the date: it names no wait
    assert backoff_delay(value, 1, now, 300.0) == (BASE, False)
    assert backoff_delay(value, 3, now, 300.0) == (4 * BASE, False)


def test_doubling_is_capped_and_bounded_for_any_streak() -> None:
    assert backoff_delay(None, 10**9, 0.0, 300.0) == (300.0, False)
    assert backoff_delay(None, 0, 0.0, 300.0) == (BASE, False)
