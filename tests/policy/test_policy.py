"""The pure fetch policy: status codes, redirects, caching, and the 12 h / 30 d edges.

Time is an argument, so the edges are tested to the second without sleeping.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scrapy_gbot_robots.policy.fetch import (
    FetchResult,
    evaluate,
    is_server_error,
    max_age,
    next_hop,
    note_page_answer,
    proxy_refused,
    retry_after_seconds,
    retry_at_once,
    ttl,
)
from scrapy_gbot_robots.policy.states import Kind, Mode, PolicyConfig, rules_in_force

CFG = PolicyConfig()
T0 = 1_700_000_000.0
HOUR = 3600.0
DAY = 86400.0
BODY = b"User-agent: *\nDisallow: /private\n"


def ok(body: bytes = BODY, cache_control: str | None = None) -> FetchResult:
    return FetchResult(status=200, body=body, cache_control=cache_control)


# -- status codes ---------------------------------------------------------------------------
@pytest.mark.parametrize("status", [200, 203, 206, 299])
def test_2xx_parses_body(status: int) -> None:
    state = evaluate(FetchResult(status=status, body=BODY), T0, None, CFG)
    assert state.kind is Kind.RULES
    assert state.robots is not None
    assert not state.robots.allowed("http://h/private", "Googlebot")
    assert rules_in_force(state, T0, CFG).mode is Mode.RULES


@pytest.mark.parametrize("status", [400, 401, 403, 404, 410, 451, 499])
def test_4xx_means_no_restrictions_whatever_the_body(status: int) -> None:
    result = FetchResult(status=status, body=b"User-agent: *\nDisallow: /\n")
    state = evaluate(result, T0, None, CFG)
    assert state.kind is Kind.ALLOW_ALL
    assert state.robots is None
    assert rules_in_force(state, T0, CFG).mode is Mode.ALLOW_ALL


@pytest.mark.parametrize(
    "result",
    [
        FetchResult(status=429),
        FetchResult(status=500),
        FetchResult(status=503),
        FetchResult(status=599),
        FetchResult(status=600),
        FetchResult(status=101),
        FetchResult(status=None, error="DNSLookupError"),
        FetchResult(status=None, error="TimeoutError"),
        FetchResult(status=None, error="ConnectionLost"),
        FetchResult(status=200, body=BODY, error="data loss"),
    ],
)
def test_server_errors(result: FetchResult) -> None:
    assert is_server_error(result)
    state = evaluate(result, T0, None, CFG)
    assert state.kind is Kind.SERVER_ERROR
    assert state.error_since == T0
    assert rules_in_force(state, T0, CFG).mode is Mode.STOPPED


@pytest.mark.parametrize(
    "result",
    [
        FetchResult(status=500),
        FetchResult(status=503),
        FetchResult(status=429),
        FetchResult(status=503, retry_after="0"),
        FetchResult(status=503, retry_after="soon"),  # unusable: as if absent
        FetchResult(status=200, body=BODY, error="data loss"),
        FetchResult(status=None, error="ConnectionLost"),  # a reset (older Scrapy)
        FetchResult(status=None, error="DownloadFailedError"),  # a reset (Scrapy 2.19)
        FetchResult(status=None, error="ResponseNeverReceived"),
    ],
)
def test_transient_server_errors_are_retried_at_once(result: FetchResult) -> None:
    assert retry_at_once(result)


@pytest.mark.parametrize(
    "result",
    [
        FetchResult(status=None, error="DownloadTimeoutError"),  # Scrapy 2.19
        FetchResult(status=None, error="TimeoutError"),  # older Scrapy
        FetchResult(status=None, error="TCPTimedOutError"),
        FetchResult(status=None, error="CannotResolveHostError"),
        FetchResult(status=None, error="DNSLookupError"),
        FetchResult(status=None, error="DownloadConnectionRefusedError"),
        FetchResult(status=None, error="ConnectionRefusedError"),
        FetchResult(status=None, error="NoRouteError"),
        FetchResult(status=429, retry_after="120"),
        FetchResult(status=503, retry_after="Wed, 21 Oct 2015 07:28:00 GMT"),
        FetchResult(status=200, body=BODY),
        FetchResult(status=404),
        FetchResult(status=301),
    ],
)
def test_waits_and_answers_are_not_retried_at_once(result: FetchResult) -> None:
    """A timeout or an unreachable host waits for the backoff; so does a named wait."""
    assert not retry_at_once(result)


def test_redirect_at_end_of_chain_is_a_404() -> None:
    state = evaluate(FetchResult(status=301, redirects=5), T0, None, CFG)
    assert state.kind is Kind.ALLOW_ALL
    assert state.reason == "redirect limit"


# -- redirects ------------------------------------------------------------------------------
def test_next_hop_follows_five_hops_then_stops() -> None:
    url = "http://a.test/robots.txt"
    for hops in range(5):
        assert next_hop(url, 301, "/r", hops, CFG) == "http://a.test/r"
    assert next_hop(url, 301, "/r", 5, CFG) is None


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_next_hop_cross_host_and_relative(status: int) -> None:
    url = "http://a.test/robots.txt"
    assert next_hop(url, status, "https://b.test:8443/robots.txt", 0, CFG) == (
        "https://b.test:8443/robots.txt"
    )
    assert next_hop(url, status, "other.txt#frag", 0, CFG) == "http://a.test/other.txt"


def test_next_hop_ends_chain() -> None:
    url = "http://a.test/robots.txt"
    assert next_hop(url, 200, "/x", 0, CFG) is None  # only 3xx redirects
    assert next_hop(url, 302, None, 0, CFG) is None
    assert next_hop(url, 302, "", 0, CFG) is None
    assert next_hop(url, 302, "javascript:alert(1)", 0, CFG) is None
    assert next_hop(url, 302, "/r", 0, PolicyConfig(max_redirects=0)) is None


UNUSABLE_LOCATIONS = [
    "http://[::1/robots.txt",  # unparsable (an IPv6 host without its closing bracket)
    "http://h:99999/robots.txt",  # port out of range
    "http://h:0/robots.txt",
    "http://h:6a/robots.txt",
    "http://evil\x1bc\x07.test/robots.txt",  # a host no client sends (Twisted refuses it)
    "http://a b.test/robots.txt",
    "ftp://h/robots.txt",  # a scheme that serves no robots.txt of ours
    "mailto:a@b.test",
]


@pytest.mark.parametrize("location", UNUSABLE_LOCATIONS)
def test_a_redirect_without_a_usable_location_ends_the_chain_as_a_404(location: str) -> None:
    """Issue 24: ``http://[::1/`` raised ValueError (a traceback, a server error); a bad port
    was fetched and failed (a server error, retried at once). All count as a 404 now."""
    url = "http://a.test/robots.txt"
    assert next_hop(url, 301, location, 0, CFG) is None
    state = evaluate(FetchResult(status=301, redirects=0), T0, None, CFG)
    assert state.kind is Kind.ALLOW_ALL and state.reason == "unusable redirect"
    assert not retry_at_once(FetchResult(status=301))


@given(st.text(max_size=60), st.integers(0, 4))
def test_next_hop_never_raises_and_only_names_urls_with_a_robots_txt(
    location: str, hops: int
) -> None:
    from scrapy_gbot_robots.policy.origin import origin_of

    target = next_hop("http://a.test/robots.txt", 302, location, hops, CFG)
    assert target is None or origin_of(target) is not None


# -- caching --------------------------------------------------------------------------------
def test_default_ttl_is_24h() -> None:
    state = evaluate(ok(), T0, None, CFG)
    assert state.refresh_at == T0 + DAY


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("max-age=3600", 3600.0),
        ("public, max-age=172800", 172800.0),
        ('max-age="600"', 600.0),
        ("MAX-AGE=120, must-revalidate", 120.0),
        ("s-maxage=5", None),
        ("max-age=abc", None),
        ("no-cache", None),
        (None, None),
    ],
)
def test_max_age(header: str | None, seconds: float | None) -> None:
    assert max_age(header) == seconds


def test_max_age_replaces_default_and_is_clamped() -> None:
    assert ttl("max-age=7200", CFG) == 7200.0
    assert ttl("max-age=172800", CFG) == 172800.0  # may increase
    assert ttl("max-age=0", CFG) == CFG.min_ttl
    assert ttl("max-age=999999999", CFG) == CFG.max_ttl
    assert ttl(None, CFG) == CFG.cache_ttl
    state = evaluate(FetchResult(status=404, cache_control="max-age=300"), T0, None, CFG)
    assert state.refresh_at == T0 + 300


def test_body_capped_at_500_kib() -> None:
    body = b"User-agent: *\n" + b"#" * 600_000 + b"\nDisallow: /\n"
    state = evaluate(ok(body), T0, None, CFG)
    assert state.robots is not None
    assert len(state.robots.body) == 512_000
    assert state.robots.truncated
    assert state.robots.allowed("http://h/x", "Googlebot")


# -- server errors: 12 hours, 30 days -------------------------------------------------------
def test_first_12_hours_stopped_even_with_a_good_copy() -> None:
    good = evaluate(ok(), T0, None, CFG)
    err = evaluate(FetchResult(status=503), T0 + DAY, good, CFG)
    assert err.robots is good.robots
    force = rules_in_force(err, T0 + DAY, CFG)
    assert (force.mode, force.until) == (Mode.STOPPED, T0 + DAY + 12 * HOUR)
    assert rules_in_force(err, T0 + DAY + 12 * HOUR - 1, CFG).mode is Mode.STOPPED


def test_after_12_hours_last_good_copy_for_30_days() -> None:
    good = evaluate(ok(), T0, None, CFG)
    since = T0 + DAY
    err = evaluate(FetchResult(status=500), since, good, CFG)
    force = rules_in_force(err, since + 12 * HOUR, CFG)
    mode, until = force.mode, force.until
    assert (mode, until) == (Mode.RULES, since + 30 * DAY)
    assert rules_in_force(err, since + 30 * DAY - 1, CFG).mode is Mode.RULES


def test_after_12_hours_no_good_copy_means_no_restrictions() -> None:
    err = evaluate(FetchResult(status=None, error="TimeoutError"), T0, None, CFG)
    assert rules_in_force(err, T0 + 12 * HOUR, CFG).mode is Mode.ALLOW_ALL
    assert rules_in_force(err, T0 + 29 * DAY, CFG).mode is Mode.ALLOW_ALL


def test_last_good_copy_may_be_a_404() -> None:
    gone = evaluate(FetchResult(status=404), T0, None, CFG)
    err = evaluate(FetchResult(status=503), T0 + 1, gone, CFG)
    assert rules_in_force(err, T0 + 1 + 12 * HOUR, CFG).mode is Mode.ALLOW_ALL


def test_after_30_days_depends_on_site_availability() -> None:
    good = evaluate(ok(), T0, None, CFG)
    err = evaluate(FetchResult(status=503), T0, good, CFG)
    after = T0 + 30 * DAY
    assert rules_in_force(err, after, CFG).mode is Mode.STOPPED  # nothing answered
    answered_before = replace(err, page_ok_at=T0 - 1)
    # answered before the errors:
    assert rules_in_force(answered_before, after, CFG).mode is Mode.STOPPED
    answers = replace(err, page_ok_at=T0 + 2 * DAY)
    assert rules_in_force(answers, after, CFG).mode is Mode.ALLOW_ALL  # site answers


@pytest.mark.parametrize("status", [200, 204, 301, 304, 400, 401, 403, 404, 410, 451])
def test_a_page_answer_that_shows_the_site_serving_counts(status: int) -> None:
    err = evaluate(FetchResult(status=503), T0, None, CFG)
    noted = note_page_answer(err, status, T0 + DAY)
    assert noted is not None and noted.page_ok_at == T0 + DAY
    assert rules_in_force(noted, T0 + 30 * DAY, CFG).mode is Mode.ALLOW_ALL
    assert note_page_answer(noted, status, T0 + 2 * DAY) is None  # once per streak


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504, 599, 600, 999, 100, 0])
def test_a_429_or_a_5xx_page_answer_is_no_evidence_of_availability(status: int) -> None:
    """Issue 24: Google reads a 429 as a server error; the site must stay stopped."""
    err = evaluate(FetchResult(status=503), T0, None, CFG)
    assert note_page_answer(err, status, T0 + DAY) is None
    assert rules_in_force(err, T0 + 30 * DAY, CFG).mode is Mode.STOPPED


def test_a_page_answer_changes_nothing_outside_an_error_streak() -> None:
    assert note_page_answer(evaluate(ok(), T0, None, CFG), 200, T0 + 1) is None
    assert note_page_answer(evaluate(FetchResult(status=404), T0, None, CFG), 200, T0) is None


def test_error_streak_keeps_its_start_and_backs_off() -> None:
    first = evaluate(FetchResult(status=503), T0, None, CFG)
    assert first.refresh_at == T0 + CFG.retry_backoff
    second = evaluate(FetchResult(status=503), T0 + 60, first, CFG)
    third = evaluate(FetchResult(status=None, error="TimeoutError"), T0 + 200, second, CFG)
    assert second.error_since == third.error_since == T0
    assert (second.errors, third.errors) == (2, 3)
    assert second.refresh_at == T0 + 60 + 2 * CFG.retry_backoff
    assert third.refresh_at == T0 + 200 + 4 * CFG.retry_backoff
    many = first
    for i in range(30):
        many = evaluate(FetchResult(status=503), T0 + i, many, CFG)
    assert many.refresh_at - many.fetched_at == CFG.retry_backoff_max
    # Still stopped until 12 h after the *first* error, not the latest.
    assert rules_in_force(third, T0 + 12 * HOUR, CFG).mode is Mode.ALLOW_ALL


def test_success_ends_the_streak() -> None:
    err = evaluate(FetchResult(status=503), T0, None, CFG)
    good = evaluate(ok(), T0 + 100, err, CFG)
    assert good.kind is Kind.RULES and good.error_since is None and good.errors == 0
    again = evaluate(FetchResult(status=503), T0 + 200, good, CFG)
    assert again.error_since == T0 + 200 and again.errors == 1


def test_retry_after_is_honoured() -> None:
    state = evaluate(FetchResult(status=503, retry_after="120"), T0, None, CFG)
    assert state.refresh_at == T0 + 120
    state = evaluate(FetchResult(status=429, retry_after="999999"), T0, None, CFG)
    assert state.refresh_at == T0 + CFG.retry_backoff_max
    state = evaluate(FetchResult(status=503, retry_after="0"), T0, None, CFG)
    assert state.refresh_at == T0 + 1  # never a hot retry loop


def test_retry_after_http_date() -> None:
    now = 1_445_412_480.0  # Wed, 21 Oct 2015 07:28:00 GMT
    assert retry_after_seconds("Wed, 21 Oct 2015 07:30:00 GMT", now) == 120.0
    assert retry_after_seconds("Wed, 21 Oct 2015 07:00:00 GMT", now) == 0.0
    assert retry_after_seconds("soon", now) is None
    assert retry_after_seconds(None, now) is None


def test_custom_durations() -> None:
    cfg = PolicyConfig(error_stop=10, error_grace=100)
    good = evaluate(ok(), T0, None, cfg)
    err = evaluate(FetchResult(status=502), T0, good, cfg)
    assert rules_in_force(err, T0 + 9.9, cfg).mode is Mode.STOPPED
    assert rules_in_force(err, T0 + 10, cfg).mode is Mode.RULES
    assert rules_in_force(err, T0 + 100, cfg).mode is Mode.STOPPED


@pytest.mark.parametrize(
    "value", ["²", "١٢٠", "12.5", "-3", "Wed, 21 Oct 99999 07:28:00 GMT", "\x00"]
)
def test_a_retry_after_that_is_no_number_nor_date_is_ignored(value: str) -> None:
    assert retry_after_seconds(value, T0) is None
    state = evaluate(FetchResult(status=503, retry_after=value), T0, None, CFG)
    assert state.refresh_at == T0 + CFG.retry_backoff  # the backoff, as if absent
    assert retry_at_once(FetchResult(status=503, retry_after=value))  # no wait was asked


@given(st.text(max_size=40))
def test_retry_after_never_raises_whatever_the_server_sent(value: str) -> None:
    seconds = retry_after_seconds(value, T0)
    assert seconds is None or seconds >= 0
    retry_at_once(FetchResult(status=503, retry_after=value))


def test_a_server_asking_for_a_wait_is_not_retried_at_once() -> None:
    assert not retry_at_once(FetchResult(status=503, retry_after="120"))
    assert not retry_at_once(FetchResult(status=429, retry_after="Wed, 21 Oct 2099 07:28:00 GMT"))
    assert retry_at_once(FetchResult(status=503, retry_after="0"))  # no wait: retry at once
    assert retry_at_once(FetchResult(status=503))


def test_a_proxys_407_is_no_answer_of_the_origin() -> None:
    """Issue 46, item 1: a 407 that came through a proxy (or a CONNECT tunnel the proxy
    refused) leaves the origin's rules unknown: a server error, never "no restrictions",
    and not retried at once (the same credentials get the same answer). Without a proxy a
    407 is the origin's 4xx, as Google reads it."""
    proxy = "http://127.0.0.1:3128"
    for result in (
        FetchResult(status=407, proxy=proxy),
        FetchResult(status=None, error="TunnelError", proxy=proxy),
    ):
        assert proxy_refused(result) and is_server_error(result)
        assert not retry_at_once(result)
        state = evaluate(result, T0, None, CFG)
        assert state.kind is Kind.SERVER_ERROR and state.reason.startswith("proxy refused (")
    direct = evaluate(FetchResult(status=407), T0, None, CFG)
    assert direct.kind is Kind.ALLOW_ALL and not proxy_refused(FetchResult(status=407))
    assert not proxy_refused(FetchResult(status=403, proxy=proxy))
