"""robots.txt revalidated: validators kept with a copy, sent back, and what a 304 means.

Google's crawlers support ``ETag`` / ``If-None-Match`` and ``Last-Modified`` /
``If-Modified-Since`` and prefer the ``ETag`` (its crawlers' page, "HTTP caching"); a 304
to a request that carried no validator is a 3xx without ``Location``: a 404.
"""

from __future__ import annotations

import pytest

from scrapy_gbot_robots.policy.fetch import (
    MAX_VALIDATOR,
    NOT_MODIFIED_UNKNOWN_COPY,
    FetchResult,
    conditional_headers,
    evaluate,
    next_hop,
    ttl,
    validators_of,
)
from scrapy_gbot_robots.policy.states import (
    Kind,
    Mode,
    OriginState,
    PolicyConfig,
    Validators,
    rules_in_force,
)

CFG = PolicyConfig()
T0 = 1_700_000_000.0
DAY = 86400.0
BODY = b"User-agent: *\nDisallow: /private\n"
DATE = "Tue, 22 Feb 2022 22:00:00 GMT"


def fetched(etag: str | None = '"v1"', last_modified: str | None = None) -> OriginState:
    return evaluate(FetchResult(200, BODY, etag=etag, last_modified=last_modified), T0, None, CFG)


def test_a_200_keeps_its_validators_and_they_are_sent_back_etag_first() -> None:
    state = evaluate(FetchResult(200, BODY, etag='"v1"', last_modified=DATE), T0, None, CFG)
    assert state.validators == Validators('"v1"', DATE)
    sent, headers = conditional_headers(state)
    assert sent == state.validators and headers == {"If-None-Match": '"v1"'}


def test_a_last_modified_alone_is_sent_as_if_modified_since() -> None:
    state = evaluate(FetchResult(200, BODY, last_modified=DATE), T0, None, CFG)
    assert conditional_headers(state) == (Validators(None, DATE), {"If-Modified-Since": DATE})


def test_nothing_is_sent_without_a_copy_or_without_validators() -> None:
    assert conditional_headers(None) == (None, {})
    assert conditional_headers(evaluate(FetchResult(200, BODY), T0, None, CFG)) == (None, {})
    gone = evaluate(FetchResult(404, etag='"x"'), T0, None, CFG)
    assert gone.validators is None and conditional_headers(gone) == (None, {})
    failing = evaluate(FetchResult(503, etag='"x"'), T0, None, CFG)
    assert failing.validators is None and conditional_headers(failing) == (None, {})


@pytest.mark.parametrize(
    ("value", "kept"),
    [
        ('"' + "a" * (MAX_VALIDATOR - 2) + '"', True),
        ('"' + "a" * (MAX_VALIDATOR - 1) + '"', False),
        ('"' + "x" * 1_000_000 + '"', False),
        ('W/"weak"', True),
        ("  padded  ", True),
        ('"caf\xe9"', False),
        ('"a\tb"', False),
        ("", False),
    ],
)
def test_validators_are_capped_and_printable(value: str, kept: bool) -> None:
    got = validators_of(value, None)
    assert (got is not None) is kept
    if got is not None:
        assert got.etag == value.strip() and len(got.etag) <= MAX_VALIDATOR


def test_a_304_to_a_conditional_request_keeps_the_copy_and_restarts_its_clock() -> None:
    copy = fetched()
    later = T0 + 2 * DAY
    state = evaluate(
        FetchResult(304, cache_control="max-age=7200", sent=copy.validators), later, copy, CFG
    )
    assert state.kind is Kind.RULES and state.revalidated and state.status == 304
    assert state.robots is copy.robots  # the same parsed copy: nothing parsed again
    assert state.fetched_at == state.good_at == later
    assert state.refresh_at == later + 7200.0
    assert state.validators == copy.validators
    force = rules_in_force(state, later, CFG)
    assert force.mode is Mode.RULES and force.robots is not None
    assert not force.robots.allowed("http://a.test/private/x", "bot")


def test_a_304_without_cache_control_lives_googles_24_hours() -> None:
    copy = fetched()
    state = evaluate(FetchResult(304, sent=copy.validators), T0 + DAY, copy, CFG)
    assert state.refresh_at == T0 + DAY + ttl(None, CFG) == T0 + 2 * DAY


def test_a_304_updates_the_validators_it_carries() -> None:
    copy = fetched(etag='"v1"', last_modified=DATE)
    newer = "Wed, 23 Feb 2022 22:00:00 GMT"
    result = FetchResult(304, etag='"v1"', last_modified=newer, sent=copy.validators)
    state = evaluate(result, T0 + DAY, copy, CFG)
    assert state.validators == Validators('"v1"', newer)


def test_a_304_after_a_server_error_brings_the_copy_back_in_force() -> None:
    """The copy kept through the error streak is confirmed current: rules again, at once."""
    copy = fetched()
    failing = evaluate(FetchResult(503), T0 + DAY, copy, CFG)
    assert failing.validators == copy.validators  # kept with the copy
    assert rules_in_force(failing, T0 + DAY, CFG).mode is Mode.STOPPED
    state = evaluate(FetchResult(304, sent=failing.validators), T0 + DAY + 60, failing, CFG)
    assert state.kind is Kind.RULES and state.robots is copy.robots and state.errors == 0


def test_a_304_to_a_request_without_validators_is_a_3xx_without_location() -> None:
    """Google's rules for 3xx: no ``Location``, the chain ends, counted as a 404."""
    copy = fetched()
    state = evaluate(FetchResult(304), T0 + DAY, copy, CFG)
    assert state.kind is Kind.ALLOW_ALL and state.reason == "unusable redirect"
    assert not state.revalidated


def test_a_304_naming_a_copy_the_store_no_longer_holds_never_means_no_restrictions() -> None:
    copy = fetched(etag='"v2"')
    stale = FetchResult(304, sent=Validators('"v1"'))
    for previous in (copy, None):
        state = evaluate(stale, T0 + DAY, previous, CFG)
        assert state.kind is Kind.SERVER_ERROR and state.reason == NOT_MODIFIED_UNKNOWN_COPY
        assert rules_in_force(state, T0 + DAY, CFG).mode is Mode.STOPPED


def test_a_304_to_a_conditional_request_is_never_followed_even_with_a_location() -> None:
    url = "http://a.test/robots.txt"
    assert next_hop(url, 304, "/elsewhere", 0, CFG) == "http://a.test/elsewhere"
    assert next_hop(url, 304, "/elsewhere", 0, CFG, conditional=True) is None
    assert next_hop(url, 301, "/elsewhere", 0, CFG, conditional=True) == "http://a.test/elsewhere"


@pytest.mark.parametrize(
    "cache_control",
    ["no-store", "no-cache", "no-store, no-cache, must-revalidate", "private, no-cache"],
)
def test_no_store_and_no_cache_are_not_read_as_google_reads_max_age_alone(
    cache_control: str,
) -> None:
    """Google's page names ``max-age`` only, and its crawlers support no other caching
    directive: the copy is kept and obeyed for Google's 24 hours (docs/crawling.md)."""
    state = evaluate(FetchResult(200, BODY, cache_control=cache_control), T0, None, CFG)
    assert state.kind is Kind.RULES and state.refresh_at == T0 + CFG.cache_ttl
    with_age = evaluate(
        FetchResult(200, BODY, cache_control=cache_control + ", max-age=600"), T0, None, CFG
    )
    assert with_age.refresh_at == T0 + 600.0
